// Types of the extract-between package (its JavaScript is lib/*.js).

/** The card's limits (text-extract-between 1.0.0). */
export declare const limits: Readonly<{
  maxTextBytes: 256000;
  maxMarkerBytes: 4096;
  defaultMaxMatches: 100;
  maxMatches: 1000;
}>;

/** The most of one match's content a scanner holds unless told otherwise: 16 MiB. */
export declare const DEFAULT_MAX_MATCH_BYTES: number;

/** `extract`'s answer: the card's output. */
export interface Extracted {
  /** The contents between the markers, in order. */
  matches: string[];
  /** A further complete match exists past `maxMatches`. */
  truncated: boolean;
}

export interface ExtractOptions {
  /** At most this many matches, an integer from 1 to 1000 (default 100). */
  maxMatches?: number;
}

/**
 * The card's tool: the contents between `start` and `end`, left to right and
 * non-overlapping, at most `maxMatches` of them.
 *
 * @example
 * extract("pre[one]mid[two]post", "[", "]"); // { matches: ["one", "two"], truncated: false }
 * @throws {InvalidInput} an argument the card refuses
 * @throws {UnclosedStartMarker} a start marker with no end marker after it
 */
export declare function extract(
  text: string,
  start: string,
  end: string,
  options?: ExtractOptions,
): Extracted;

/**
 * Every content between `start` and `end` in a text of any size (no cap, no size limit).
 *
 * @example
 * findAll("a <b>1</b> c <b>2</b>", "<b>", "</b>"); // ["1", "2"]
 */
export declare function findAll(text: string, start: string, end: string): string[];

/** A match found by a `Scanner` or `extractStream`: its content and where it lies. */
export interface Match {
  /** The content between the markers. */
  text: string;
  /** Where the content begins in the whole input, in UTF-16 code units. */
  start: number;
  /** Where the content ends, in UTF-16 code units. */
  end: number;
  /** Where the content begins, in UTF-8 bytes. */
  byteStart: number;
  /** Where the content ends, in UTF-8 bytes. */
  byteEnd: number;
}

/** A start marker: `start`..`end` is the marker's span. */
export interface OpenEvent {
  kind: "open";
  start: number;
  end: number;
  byteStart: number;
  byteEnd: number;
}

/** The next piece of the open match's content (whole characters, never empty). */
export interface TextEvent {
  kind: "text";
  text: string;
  start: number;
  end: number;
  byteStart: number;
  byteEnd: number;
}

/** An end marker: `start`..`end` is the marker's span. */
export interface CloseEvent {
  kind: "close";
  start: number;
  end: number;
  byteStart: number;
  byteEnd: number;
}

/** One step of a match's life, for token streams. */
export type MatchEvent = OpenEvent | TextEvent | CloseEvent;

/** What a scanner or a stream takes: strings, or bytes cut anywhere. */
export type Chunk = string | ArrayBuffer | ArrayBufferView;

export interface ScannerOptions<E extends boolean = boolean> {
  /** Hand out events (the text inside a match as it arrives) instead of whole matches. */
  events?: E;
  /**
   * The most bytes of one match's content held (default 16 MiB); `null` for no limit of
   * yours. Never more than 256 MiB (268435456 bytes), the most the WebAssembly module can
   * hold of one match and hand out as one string: past it, `MatchTooLarge` with that `limit`.
   */
  maxMatchBytes?: number | null;
}

/**
 * A resumable scanner: `feed` it chunks, then `finish`; each call answers what it completed.
 *
 * @example
 * const s = new Scanner("[", "]");
 * s.feed("a [one] [t"); // [{ text: "one", start: 3, end: 6, byteStart: 3, byteEnd: 6 }]
 * s.feed("wo]");        // [{ text: "two", ... }]
 * s.finish();           // []
 */
export declare class Scanner<E extends boolean = false> {
  constructor(start: string, end: string, options?: ScannerOptions<E>);
  /** Whether this scanner hands out events. */
  readonly events: E;
  /** Scans the next chunk; answers the matches (or events) it completed. */
  feed(chunk: Chunk): E extends true ? MatchEvent[] : Match[];
  /** Ends the input; answers the last matches (or events). */
  finish(): E extends true ? MatchEvent[] : Match[];
}

/**
 * A `TransformStream` from text chunks to matches (or events, with `{ events: true }`).
 *
 * @example
 * for await (const m of response.body.pipeThrough(extractStream("<b>", "</b>"))) m.text;
 */
export declare function extractStream(
  start: string,
  end: string,
  options?: ScannerOptions<false>,
): TransformStream<Chunk, Match>;
export declare function extractStream(
  start: string,
  end: string,
  options: ScannerOptions<true>,
): TransformStream<Chunk, MatchEvent>;

/**
 * The base class of the package's errors; `code` is the card's name of the error, or the
 * package's own: `"scanner_ended"` (a call on a scanner after its end), `"module_reset"` (the
 * WebAssembly module failed inside, most likely out of memory, and was started afresh; the
 * package works on).
 */
export declare class ExtractBetweenError extends Error {
  readonly code: string;
}

/** A refused argument; `field` names it. */
export declare class InvalidInput extends ExtractBetweenError {
  readonly code: "invalid_input" | "invalid_utf8";
  /** `"text"`, `"start"`, `"end"`, `"maxMatches"`, `"maxMatchBytes"`, `"events"`, `"chunk"` or `"options"`. */
  readonly field: string;
  /** The UTF-16 offset of a lone surrogate, where the error is about one. */
  readonly offset?: number;
  /** The byte offset of bytes that are not UTF-8, where the error is about them. */
  readonly byteOffset?: number;
  /** Matches (or events) of the call, before the error. */
  readonly matches: Array<Match | MatchEvent>;
}

/** A start marker with no end marker after it. */
export declare class UnclosedStartMarker<M = string | Match | MatchEvent> extends ExtractBetweenError {
  readonly code: "unclosed_start_marker";
  /** Where the marker begins, in UTF-16 code units. */
  readonly offset: number;
  /** Where the marker begins, in UTF-8 bytes. */
  readonly byteOffset: number;
  /**
   * The matches before it: strings for `extract` and `findAll`, the call's matches or events
   * for a scanner. An error caught with `instanceof` has them as `any[]`, so code that knows
   * which call threw assigns them to `string[]` or `Match[]` without a cast.
   */
  readonly matches: M[];
  /** From a `Tags` scan: the pair left open. */
  readonly tag?: number;
  /** From a `TagScanner`: the events its last call decided before the error. */
  readonly events?: TagEvent[];
}

/** A match longer than a scanner's `maxMatchBytes`. */
export declare class MatchTooLarge extends ExtractBetweenError {
  readonly code: "match_too_large";
  /** Where its content begins, in UTF-16 code units. */
  readonly offset: number;
  /** Where its content begins, in UTF-8 bytes. */
  readonly byteOffset: number;
  /** The bound it broke. */
  readonly limit: number;
  /** The call's matches before it. */
  readonly matches: Match[];
}

/** One step of a tagged text: a pair's start marker, a piece of its match, its end marker, or
 * (with `{ outside: true }`) text outside every match. Offsets span the marker or piece in the
 * whole input, in UTF-16 code units (`start`, `end`) and UTF-8 bytes. */
export interface TagEvent {
  kind: "open" | "text" | "close" | "outside";
  /** The pair's index in the set; `null` for outside text. */
  tag: number | null;
  /** The piece, on `"text"` and `"outside"` events. */
  text?: string;
  start: number;
  end: number;
  byteStart: number;
  byteEnd: number;
}

export interface TagOptions {
  /** Also answer the text outside every match (`kind: "outside"`). */
  outside?: boolean;
}

/**
 * A set of 1 to 64 marker pairs followed in one pass: from each position the leftmost start
 * marker opens a match (the longest where several begin there) and that pair's end closes it.
 *
 * @example
 * const tags = new Tags([["<think>", "</think>"], ["<tool_call>", "</tool_call>"]]);
 * tags.findAll("<think>hm</think>Hi<tool_call>{}</tool_call>"); // [{ tag: 0, text: "hm" }, { tag: 1, text: "{}" }]
 */
export declare class Tags {
  constructor(pairs: ReadonlyArray<readonly [string, string]>);
  /** The pairs, as given. */
  readonly pairs: [string, string][];
  /** Every match, in order, with its pair's index. */
  findAll(text: string): { tag: number; text: string }[];
  /** A resumable scanner of this set. */
  scanner(options?: TagOptions): TagScanner;
  /** The scanner as a `TransformStream` from chunks to events. */
  stream(options?: TagOptions): TransformStream<Chunk, TagEvent>;
}

/** A tag set's resumable scanner: `feed` chunks, then `finish`; each call answers its events. */
export declare class TagScanner {
  private constructor();
  feed(chunk: Chunk): TagEvent[];
  finish(): TagEvent[];
}
