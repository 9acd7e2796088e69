/**
 * What an `If-Match` header of `PATCH /jobs/{id}` asks for (docs/contract.md §6a): the versions the caller
 * decided its change on. The header must name at least one: absent, blank or `*` (which names no version and
 * would switch the lost-update protection off) is `428 precondition_required`. Anything that is not a list of
 * strong, quoted entity-tags (RFC 9110 §8.8.3) is `400 invalid_parameter` naming `If-Match`, so an unquoted
 * `1764147600000` is told it is malformed rather than answered `412` beside an `ETag` that looks identical; a
 * weak tag (`W/"…"`) is refused the same way, since If-Match compares strongly and a weak tag could never match.
 */
import { ApiError, invalidParameter } from '../../errors';

/** The name of the header, as an error names it. */
export const IF_MATCH_HEADER = 'If-Match';

/** A version as the job's ETag quotes it: decimal digits, at most 16 (a safe integer). */
const VERSION = /^[0-9]{1,16}$/;

/**
 * One member of an entity-tag list and the comma (or end) after it: `"17"`, `W/"17"`, or nothing (RFC 9110
 * §5.6.1 lets a list hold empty members). `etagc` is `%x21 / %x23-7E / obs-text`, so a comma may sit inside a
 * tag and the list is read tag by tag, never split on commas.
 */
const LIST_MEMBER = /[ \t]*(?:(W\/)?"([\x21\x23-\x7E\x80-\xFF]*)")?[ \t]*(,|$)/y;

interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** The entity-tags of a list, in order; `undefined` when the text is not an entity-tag list. */
export const entityTags = (text: string): EntityTag[] | undefined => {
  const tags: EntityTag[] = [];
  let position = 0;
  while (position < text.length) {
    LIST_MEMBER.lastIndex = position;
    const match = LIST_MEMBER.exec(text);
    if (match === null) return undefined;
    if (match[2] !== undefined) tags.push({ weak: match[1] !== undefined, opaque: match[2] });
    if (match[3] === '') break;
    position = LIST_MEMBER.lastIndex;
  }
  return tags;
};

/**
 * The versions an `If-Match` value names (`undefined` when the header is absent). A well-formed tag that
 * is no version of ours (`"abc"`) names none, so it answers `412` like any other version that is not current.
 *
 * @throws {@link ApiError} `precondition_required` when the header is absent, blank or `*`;
 *   `invalid_parameter` (`If-Match`) when it is not a list of strong, quoted entity-tags.
 */
export const versionsOfIfMatch = (header: string | undefined): number[] => {
  const text = header?.trim() ?? '';
  if (text === '') throw new ApiError('precondition_required');
  if (text === '*') {
    throw new ApiError(
      'precondition_required',
      {},
      { message: `If-Match: * names no version; send the job's current ETag, such as If-Match: "17".` },
    );
  }
  const tags = entityTags(text);
  if (tags === undefined || tags.length === 0) {
    throw invalidParameter(IF_MATCH_HEADER, `If-Match must be the job's ETag as it was sent, quoted: If-Match: "17".`);
  }
  if (tags.some((tag) => tag.weak)) {
    throw invalidParameter(
      IF_MATCH_HEADER,
      `If-Match must name the job's ETag as it was sent ("17"); a weak tag (W/"17") can never match it.`,
    );
  }
  return tags.filter((tag) => VERSION.test(tag.opaque)).map((tag) => Number(tag.opaque));
};
