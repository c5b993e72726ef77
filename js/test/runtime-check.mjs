// The package's answers in another runtime (Deno runs this file; workerd runs
// worker-check.mjs, which shares `check`): the card's example, an error's class and fields,
// a stream, events.
export async function check(api) {
  const { extract, findAll, extractStream, Scanner, UnclosedStartMarker } = api;
  const same = (a, b, what) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
  };
  same(extract("pre[one]mid[two]post", "[", "]"), { matches: ["one", "two"], truncated: false }, "extract");
  same(findAll("😀「一」", "「", "」"), ["一"], "findAll");
  try {
    extract("é[a] 😀[b", "[", "]");
    throw new Error("no error");
  } catch (e) {
    if (!(e instanceof UnclosedStartMarker) || e.offset !== 7 || e.matches[0] !== "a") throw e;
  }
  const got = [];
  for await (const m of new Response("x<t>1</t><t>2</t>").body.pipeThrough(extractStream("<t>", "</t>"))) got.push(m.text);
  same(got, ["1", "2"], "extractStream");
  const s = new Scanner("<a>", "</a>", { events: true });
  same([...s.feed("<a>Fo"), ...s.feed("o</a>")].map((e) => e.kind), ["open", "text", "text", "close"], "events");
  return "ok";
}

if (typeof Deno !== "undefined") {
  console.log(await check(await import("../lib/index.js")));
}
