// A tag set's start markers searched in a JavaScript string: the leftmost, the longest where
// several begin at one place, and the suffix that may still begin one (what a scanner holds).

/** The leftmost start marker from a position, each marker's next place remembered. */
export class Starts {
  /** @param {[string, string][]} pairs */
  constructor(pairs) {
    this.starts = pairs.map(([start]) => start);
    /** Where each start marker next begins in the text searched, -1 for nowhere. */
    this.places = this.starts.map(() => -2);
    /** Where the last answer's marker begins. */
    this.at = -1;
    this.longest = Math.max(...this.starts.map((s) => s.length));
    /** The distinct first units of the start markers, when few: a text without any of them
     * holds no start marker, which one `includes` each tells. */
    const firsts = [...new Set(this.starts.map((s) => s[0]))];
    this.firsts = firsts.length <= 3 ? firsts : null;
    /** For each first unit, its markers' pairs, longest marker first. */
    this.byFirst = new Map(firsts.map((c) => [c, this.starts.map((_, tag) => tag).filter((tag) => this.starts[tag][0] === c)]));
    for (const tags of this.byFirst.values()) tags.sort((a, b) => this.starts[b].length - this.starts[a].length);
  }

  /**
   * The next decision in `text` from `i`: a start marker that opens a match (its pair, and
   * where it begins in `this.at`), or -1 with `this.at` where the undecided rest begins
   * (`text.length` when all of it is outside text). At the end of input (`end`) nothing is
   * undecided.
   * @param {string} text
   * @param {number} i
   * @param {boolean} end
   */
  decide(text, i, end) {
    if (this.firsts === null) {
      const tag = this.next(text, i);
      const s = this.at;
      if (tag >= 0 && (end || s + this.longest <= text.length || s < openSuffix(text, i, this.starts, this.longest))) return tag;
      this.at = end ? text.length : openSuffix(text, i, this.starts, this.longest);
      return -1;
    }
    // A place where a first unit is, then its markers there, longest first: the first that
    // matches wins, unless a longer one may still, when the text ends too soon to say.
    for (let p = this.candidate(text, i); p >= 0; p = this.candidate(text, p + 1)) {
      const rest = text.length - p;
      const tags = /** @type {number[]} */ (this.byFirst.get(text[p]));
      for (let k = 0; k < tags.length; k++) {
        const marker = this.starts[tags[k]];
        if (marker.length > rest) {
          if (!end && marker.startsWith(text.slice(p))) {
            this.at = p;
            return -1;
          }
        } else if (text.startsWith(marker, p)) {
          this.at = p;
          return tags[k];
        }
      }
    }
    this.at = text.length;
    return -1;
  }

  /**
   * Where the first of the first units is in `text` from `from`, or -1.
   * @param {string} text
   * @param {number} from
   */
  candidate(text, from) {
    const firsts = /** @type {string[]} */ (this.firsts);
    let best = text.indexOf(firsts[0], from);
    for (let k = 1; k < firsts.length; k++) {
      const at = text.indexOf(firsts[k], from);
      if (at >= 0 && (best < 0 || at < best)) best = at;
    }
    return best;
  }

  /**
   * Whether `text` holds none of the start markers' first units (false when unknown).
   * @param {string} text
   */
  absent(text) {
    const firsts = this.firsts;
    if (firsts === null) return false;
    for (let k = 0; k < firsts.length; k++) if (text.includes(firsts[k])) return false;
    return true;
  }

  /** Forgets the places (a new text). */
  reset() {
    this.places.fill(-2);
  }

  /**
   * The pair whose start marker begins leftmost in `text` from `pos` (the longest there),
   * or -1; where it begins is `this.at`.
   * @param {string} text
   * @param {number} pos
   */
  next(text, pos) {
    let best = -1;
    let at = Infinity;
    for (let k = 0; k < this.starts.length; k++) {
      let place = this.places[k];
      if (place === -1) continue;
      if (place < pos) {
        place = text.indexOf(this.starts[k], pos);
        this.places[k] = place;
        if (place < 0) continue;
      }
      if (place < at || (place === at && this.starts[k].length > this.starts[best].length)) {
        best = k;
        at = place;
      }
    }
    this.at = at;
    return best;
  }
}

/**
 * Where the longest suffix of `text[from..]` that is a proper prefix of one of `markers`
 * begins (`text.length` when none does): that much may begin a marker the next chunk ends.
 * @param {string} text
 * @param {number} from
 * @param {string[]} markers
 * @param {number} longest
 */
export function openSuffix(text, from, markers, longest) {
  for (let h = Math.max(from, text.length - longest + 1); h < text.length; h++) {
    const unit = text.charCodeAt(h);
    const rest = text.length - h;
    for (let k = 0; k < markers.length; k++) {
      const m = markers[k];
      if (m.charCodeAt(0) === unit && m.length > rest && m.startsWith(text.slice(h))) return h;
    }
  }
  return text.length;
}
