// What the package exports, whichever entry instantiated the WebAssembly module.
export { ExtractBetweenError, InvalidInput, MatchTooLarge, UnclosedStartMarker } from "./errors.js";
export { extract, findAll, limits } from "./once.js";
export { DEFAULT_MAX_MATCH_BYTES, Scanner } from "./scanner.js";
export { extractStream } from "./stream.js";
export { Tags, TagScanner } from "./tags.js";
