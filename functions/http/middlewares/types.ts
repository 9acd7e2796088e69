/**
 * The shape of the HTTP chain's middlewares: middy middlewares over API Gateway REST (v1) proxy events.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** A middleware of the HTTP chain. */
export type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** The middy request a middleware of the HTTP chain sees. */
export type HttpRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult>;
