// The card's reference semantics, written as its text states them: indexOf over UTF-16 code
// units, left to right, non-overlapping, the cap with `truncated`, the unclosed error.
export function reference(text, start, end, maxMatches = Infinity) {
  const matches = [];
  let pos = 0;
  for (;;) {
    const s = text.indexOf(start, pos);
    if (s < 0) return { matches, truncated: false };
    const from = s + start.length;
    const e = text.indexOf(end, from);
    if (e < 0) return { matches, truncated: false, unclosed: s };
    if (matches.length === maxMatches) return { matches, truncated: true };
    matches.push(text.slice(from, e));
    pos = e + end.length;
  }
}
