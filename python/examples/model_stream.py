"""Show a reasoning model's answer as it streams in, hiding its thinking.

A language model's answer arrives a few characters at a time, its tags cut anywhere across
tokens. `aiter_events` turns the stream into events: `"open"` when `<answer>` is complete,
each piece of the answer's text as soon as it arrives, `"close"` at `</answer>`. Here the model
is simulated by an async generator; with an SDK, pass its stream of text deltas instead.

Run: python python/examples/model_stream.py
"""

import asyncio
import random
import sys

import extract_between as eb

REPLY = (
    "<think>The user wants the capital of Australia. Not Sydney: Canberra, since 1913.</think>"
    "Sure. <answer>The capital of Australia is Canberra. 🇦🇺</answer>"
)


async def model_tokens(seed: int = 3):
    """The reply in tokens of 1 to 6 characters, as a model would stream it."""
    rng = random.Random(seed)
    at = 0
    while at < len(REPLY):
        n = rng.randint(1, 6)
        yield REPLY[at : at + n]
        at += n
        await asyncio.sleep(0)  # another task could run here, as between network reads


async def main() -> None:
    async for event in eb.aiter_events(model_tokens(), "<answer>", "</answer>"):
        if event.kind == "open":
            print("answer: ", end="")
        elif event.kind == "text":
            print(event.text, end="", flush=True)  # shown before </answer> has arrived
        else:
            print()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
