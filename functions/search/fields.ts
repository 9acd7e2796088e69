/**
 * The search fields of docs/contract.md §3: what `GET /search/fields` lists and what `field` accepts.
 */
import type { Role } from '../auth/principal';

export const SEARCH_FIELD_IDS = [
  'Global',
  'AccountNumber',
  'AccountName',
  'JobNumber',
  'JobName',
  'FileName',
  'JobInstruction',
  'JobTags',
  'FileTags',
  'FileInstruction',
  'InvoiceReference',
  'Guid',
] as const;

export type SearchFieldId = (typeof SEARCH_FIELD_IDS)[number];

/** How a field matches: prefix words over text, integer equality, GUID equality, or all of the role's fields. */
export type FieldKind = 'global' | 'text' | 'integer' | 'guid';

export interface SearchField {
  id: SearchFieldId;
  name: string;
  seqno: number;
  kind: FieldKind;
  isOperatorOnly: boolean;
  isUserOnly: boolean;
}

/** Every search field, ordered by `seqno`. */
export const SEARCH_FIELDS: readonly SearchField[] = [
  { id: 'Global', name: 'Global', seqno: 10, kind: 'global', isOperatorOnly: false, isUserOnly: false },
  { id: 'AccountNumber', name: 'Account number', seqno: 15, kind: 'integer', isOperatorOnly: true, isUserOnly: false },
  { id: 'AccountName', name: 'Account name', seqno: 17, kind: 'text', isOperatorOnly: true, isUserOnly: false },
  { id: 'JobNumber', name: 'Job number', seqno: 20, kind: 'integer', isOperatorOnly: false, isUserOnly: false },
  { id: 'JobName', name: 'Job name', seqno: 30, kind: 'text', isOperatorOnly: false, isUserOnly: false },
  { id: 'FileName', name: 'File name', seqno: 40, kind: 'text', isOperatorOnly: false, isUserOnly: false },
  { id: 'JobInstruction', name: 'Job instruction', seqno: 50, kind: 'text', isOperatorOnly: false, isUserOnly: false },
  { id: 'JobTags', name: 'Job tags', seqno: 60, kind: 'text', isOperatorOnly: false, isUserOnly: true },
  { id: 'FileTags', name: 'File tags', seqno: 70, kind: 'text', isOperatorOnly: false, isUserOnly: true },
  {
    id: 'FileInstruction',
    name: 'File instruction',
    seqno: 75,
    kind: 'text',
    isOperatorOnly: false,
    isUserOnly: false,
  },
  {
    id: 'InvoiceReference',
    name: 'Invoice reference',
    seqno: 80,
    kind: 'text',
    isOperatorOnly: false,
    isUserOnly: false,
  },
  { id: 'Guid', name: 'Job GUID', seqno: 90, kind: 'guid', isOperatorOnly: false, isUserOnly: false },
];

/** Whether a role may use a field. */
export const fieldAllowedFor = (field: SearchField, role: Role): boolean =>
  role === 'operator' ? !field.isUserOnly : !field.isOperatorOnly;

/** The fields a role may use, ordered by `seqno`. */
export const fieldsFor = (role: Role): SearchField[] => SEARCH_FIELDS.filter((field) => fieldAllowedFor(field, role));

/** The text fields a Global search covers for a role. */
export const globalTextFieldsFor = (role: Role): SearchFieldId[] =>
  fieldsFor(role)
    .filter((field) => field.kind === 'text')
    .map((field) => field.id);

/**
 * Resolves a request's `field` value (an id or a display name, any case) to a field the role may use,
 * or `undefined` when there is none.
 */
export const resolveField = (value: string, role: Role): SearchField | undefined => {
  const wanted = value.trim().toLowerCase();
  return fieldsFor(role).find((field) => field.id.toLowerCase() === wanted || field.name.toLowerCase() === wanted);
};
