/**
 * Reads OpenSearch's upstream test stories (vendored in test/witness/opensearch/stories/): each chapter is a
 * request and, where the story records it, the status and body a real OpenSearch node answered. Tests replay
 * those answers to the engine through a fake node, so what the engine reads of an answer is checked against
 * answers OpenSearch gave.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const STORIES = join(import.meta.dirname, '..', 'witness', 'opensearch', 'stories');

/** One chapter of a story. */
export interface StoryChapter {
  synopsis: string;
  /** The path template, e.g. `/{index}/_bulk`. */
  path: string;
  method: string;
  parameters?: Record<string, unknown>;
  request?: { payload?: unknown; content_type?: string };
  /** The recorded answer; absent when the story only asserts success. */
  response?: { status: number; payload?: unknown };
}

interface Story {
  description: string;
  chapters: StoryChapter[];
}

const stories = new Map<string, Story>();

/** The chapter of `story` (a path under stories/) with this synopsis; throws if the story lacks it. */
export const storyChapter = (story: string, synopsis: string): StoryChapter => {
  let parsed = stories.get(story);
  if (parsed === undefined) {
    parsed = parse(readFileSync(join(STORIES, story), 'utf8')) as Story;
    stories.set(story, parsed);
  }
  const found = parsed.chapters.find((chapter) => chapter.synopsis === synopsis);
  if (found === undefined) throw new Error(`${story} has no chapter "${synopsis}"`);
  return found;
};

/** The chapter's recorded answer; throws if the story recorded none. */
export const recordedAnswer = (chapter: StoryChapter): { status: number; payload?: unknown } => {
  if (chapter.response === undefined) throw new Error(`"${chapter.synopsis}" records no answer`);
  return chapter.response;
};

/** The chapter's path with its path parameters filled in (`/{index}/_bulk` → `/movies/_bulk`). */
export const chapterPath = (chapter: StoryChapter): string =>
  chapter.path.replace(/\{([^}]+)\}/g, (_, name: string) => String(chapter.parameters?.[name] ?? `{${name}}`));
