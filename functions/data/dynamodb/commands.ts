/**
 * The DynamoDB operations the service uses, as commands in plain JavaScript values (the "document"
 * form of `@aws-sdk/lib-dynamodb`, with the same class and field names). DocumentClient.send runs
 * them. Lambda bundles substitute this module for `@aws-sdk/lib-dynamodb` (lib/bundling.ts), so
 * ElectroDB builds these commands there instead of the SDK's.
 */

/** A DynamoDB item or key in plain values. */
export type Doc = Record<string, unknown>;

export interface ConsumedCapacity {
  TableName?: string;
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

export type DynamoOperation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'BatchWriteItem'
  | 'TransactGetItems'
  | 'TransactWriteItems';

/** Fields every input may carry; the rest are DynamoDB's own request fields, passed through. */
interface CommonInput {
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Doc;
  ReturnConsumedCapacity?: 'INDEXES' | 'TOTAL' | 'NONE';
  [field: string]: unknown;
}

interface CommonOutput {
  ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[];
  [field: string]: unknown;
}

export interface GetInput extends CommonInput {
  TableName: string;
  Key: Doc;
  ConsistentRead?: boolean;
}
export interface PutInput extends CommonInput {
  TableName: string;
  Item: Doc;
  ConditionExpression?: string;
  ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE';
}
export interface UpdateInput extends CommonInput {
  TableName: string;
  Key: Doc;
  UpdateExpression: string;
  ConditionExpression?: string;
  ReturnValues?: 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
}
export interface DeleteInput extends CommonInput {
  TableName: string;
  Key: Doc;
  ConditionExpression?: string;
}
export interface QueryInput extends CommonInput {
  TableName: string;
  IndexName?: string;
  KeyConditionExpression: string;
  ExclusiveStartKey?: Doc;
  Limit?: number;
  ScanIndexForward?: boolean;
}
export interface ScanInput extends CommonInput {
  TableName: string;
  ExclusiveStartKey?: Doc;
}
export interface BatchGetInput extends CommonInput {
  RequestItems: Record<string, { Keys: Doc[]; [field: string]: unknown }>;
}
export type WriteRequest = { PutRequest: { Item: Doc } } | { DeleteRequest: { Key: Doc } };
export interface BatchWriteInput extends CommonInput {
  RequestItems: Record<string, WriteRequest[]>;
}
export interface TransactGetInput extends CommonInput {
  TransactItems: { Get: { TableName: string; Key: Doc; [field: string]: unknown } }[];
}
/** Put carries `Item`; Update, Delete and ConditionCheck carry `Key`; each may carry expression values. */
export type TransactWriteItem = Record<
  'Put' | 'Update' | 'Delete' | 'ConditionCheck',
  { TableName: string; Item?: Doc; Key?: Doc; ExpressionAttributeValues?: Doc; [field: string]: unknown }
>;
export interface TransactWriteInput extends CommonInput {
  TransactItems: Partial<TransactWriteItem>[];
  /** Makes retries of the same transaction idempotent; DocumentClient sets one when absent. */
  ClientRequestToken?: string;
}

export interface GetOutput extends CommonOutput {
  Item?: Doc;
}
export interface WriteOutput extends CommonOutput {
  Attributes?: Doc;
}
export interface QueryOutput extends CommonOutput {
  Items?: Doc[];
  Count?: number;
  ScannedCount?: number;
  LastEvaluatedKey?: Doc;
}
export interface BatchGetOutput extends CommonOutput {
  Responses?: Record<string, Doc[]>;
  UnprocessedKeys?: Record<string, { Keys: Doc[] }>;
}
export interface BatchWriteOutput extends CommonOutput {
  UnprocessedItems?: Record<string, WriteRequest[]>;
}
export interface TransactGetOutput extends CommonOutput {
  Responses?: { Item?: Doc }[];
}

/** One operation and its input; `Output` only types what `send` resolves to. */
export abstract class DocumentCommand<Input extends object, Output extends object> {
  abstract readonly operation: DynamoOperation;
  readonly input: Input;
  declare readonly __output?: Output;
  constructor(input: Input) {
    this.input = input;
  }
}

export class GetCommand extends DocumentCommand<GetInput, GetOutput> {
  readonly operation = 'GetItem';
}
export class PutCommand extends DocumentCommand<PutInput, WriteOutput> {
  readonly operation = 'PutItem';
}
export class UpdateCommand extends DocumentCommand<UpdateInput, WriteOutput> {
  readonly operation = 'UpdateItem';
}
export class DeleteCommand extends DocumentCommand<DeleteInput, WriteOutput> {
  readonly operation = 'DeleteItem';
}
export class QueryCommand extends DocumentCommand<QueryInput, QueryOutput> {
  readonly operation = 'Query';
}
export class ScanCommand extends DocumentCommand<ScanInput, QueryOutput> {
  readonly operation = 'Scan';
}
export class BatchGetCommand extends DocumentCommand<BatchGetInput, BatchGetOutput> {
  readonly operation = 'BatchGetItem';
}
export class BatchWriteCommand extends DocumentCommand<BatchWriteInput, BatchWriteOutput> {
  readonly operation = 'BatchWriteItem';
}
export class TransactGetCommand extends DocumentCommand<TransactGetInput, TransactGetOutput> {
  readonly operation = 'TransactGetItems';
}
export class TransactWriteCommand extends DocumentCommand<TransactWriteInput, CommonOutput> {
  readonly operation = 'TransactWriteItems';
}
