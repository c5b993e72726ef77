// Right uses of the package's types: tsc --strict accepts every line.
import {
  extract,
  extractStream,
  findAll,
  InvalidInput,
  limits,
  Scanner,
  Tags,
  UnclosedStartMarker,
  type Match,
  type MatchEvent,
  type TagEvent,
  type TagScanner,
} from "extract-between";

const out = extract("pre[one]mid[two]post", "[", "]", { maxMatches: 10 });
const first: string | undefined = out.matches[0];
const truncated: boolean = out.truncated;
const all: string[] = findAll("a", "[", "]");
const max: 1000 = limits.maxMatches;

const s = new Scanner("<a>", "</a>");
const matches: Match[] = s.feed("<a>x</a>");
const offsets: number[] = matches.map((m) => m.start + m.end + m.byteStart + m.byteEnd);
s.feed(new Uint8Array([0x3c]));
s.finish();

const e = new Scanner("<a>", "</a>", { events: true });
for (const ev of e.feed("<a>x")) {
  if (ev.kind === "text") {
    const piece: string = ev.text;
  }
}
const events: MatchEvent[] = e.finish();

const stream: TransformStream<string | ArrayBuffer | ArrayBufferView, Match> = extractStream("[", "]");
const eventStream: TransformStream<string | ArrayBuffer | ArrayBufferView, MatchEvent> = extractStream("[", "]", { events: true, maxMatchBytes: null });

try {
  extract("[", "[", "]");
} catch (err) {
  if (err instanceof UnclosedStartMarker) {
    const at: number = err.offset + err.byteOffset;
  } else if (err instanceof InvalidInput) {
    const field: string = err.field;
  }
}
const tags = new Tags([["<think>", "</think>"], ["<tool_call>", "</tool_call>"]] as const);
const found: { tag: number; text: string }[] = tags.findAll("<think>a</think>");
const tagScanner: TagScanner = tags.scanner({ outside: true });
for (const ev of tagScanner.feed("b<tool_call>c")) {
  const which: number | null = ev.tag;
  const piece: string | undefined = ev.text;
}
const tagEvents: TagEvent[] = tagScanner.finish();
const tagStream: TransformStream<string | ArrayBuffer | ArrayBufferView, TagEvent> = tags.stream();

export { first, truncated, all, max, offsets, events, stream, eventStream, found, tagEvents, tagStream };
