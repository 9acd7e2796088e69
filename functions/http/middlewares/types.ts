/**
 * The shape of the HTTP chain's middlewares: middy middlewares over API Gateway REST (v1) proxy events,
 * sharing the typed per-request state of `../state` in `request.internal`.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { EndpointContext, HttpRequest, HttpState } from '../state';

/** A middleware of the HTTP chain. */
export type HttpMiddleware<TInput = unknown> = MiddlewareObj<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  EndpointContext<TInput>,
  HttpState
>;

export type { HttpRequest };
