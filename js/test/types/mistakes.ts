// Deliberate mistakes: each line under @ts-expect-error must be a type error, or tsc fails.
import { extract, extractStream, findAll, Scanner, limits } from "extract-between";

// @ts-expect-error the text must be a string
extract(42, "[", "]");
// @ts-expect-error options are camelCase: max_matches is not one
extract("a", "[", "]", { max_matches: 5 });
// @ts-expect-error maxMatches is a number
extract("a", "[", "]", { maxMatches: "5" });
// @ts-expect-error findAll takes no options
findAll("a", "[", "]", { maxMatches: 5 });
// @ts-expect-error matches are strings
const n: number[] = extract("a", "[", "]").matches;
// @ts-expect-error a match scanner's items have no kind
new Scanner("[", "]").feed("x")[0]?.kind;
// @ts-expect-error an event scanner's items are events, not matches
const m: { text: string }[] = new Scanner("[", "]", { events: true }).feed("x");
// @ts-expect-error a chunk is a string or bytes
new Scanner("[", "]").feed(42);
// @ts-expect-error maxMatchBytes is a number or null
extractStream("[", "]", { maxMatchBytes: "1 MiB" });
// @ts-expect-error the limits are read-only
limits.maxMatches = 5;

export { n, m };
