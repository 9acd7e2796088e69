/** The account and region the rehearsals deploy to, and the shape of the IAM policies they judge. */
export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-1';

/** An IAM policy document. */
export interface PolicyDocument {
  Version?: string;
  Statement: Record<string, unknown>[];
}
