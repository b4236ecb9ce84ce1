"""Prompt-processing and generation speed of the installed llama.cpp build (tokens per second).

    python benchmarks/llama_speed.py [--profile local] [--prompt-tokens 500] [--gen-tokens 64] [--threads 2]

Loads the profile's GGUF with ``llama_cpp.Llama`` directly (no server), evaluates a prompt of about
``--prompt-tokens`` tokens (pp = prompt tokens / seconds to the first sampled token), then generates
``--gen-tokens`` tokens greedily (gen = tokens / seconds). Prints the CPU features the build uses
(``llama_print_system_info``). Numbers only: nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import time

import llama_cpp

from ditto_nb.local_model import assemble_weights
from ditto_nb.local_model.health import probe_messages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default="local")
    parser.add_argument("--prompt-tokens", type=int, default=500)
    parser.add_argument("--gen-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    print("build:", llama_cpp.__version__, llama_cpp.llama_print_system_info().decode().strip())
    llm = llama_cpp.Llama(str(assemble_weights(args.profile)), n_ctx=2048, n_threads=args.threads,
                          n_threads_batch=args.threads, seed=0, verbose=False)
    text = " ".join(m["content"] for m in probe_messages("benchmark", sentences=60))
    tokens = llm.tokenize(text.encode())[: args.prompt_tokens]
    for run in range(args.runs):
        llm.reset()
        started = time.perf_counter()
        stream = llm.generate(tokens, temp=0.0, reset=True)
        next(stream)
        first = time.perf_counter()
        for _ in range(args.gen_tokens - 1):
            next(stream)
        done = time.perf_counter()
        pp = len(tokens) / (first - started)
        gen = (args.gen_tokens - 1) / (done - first)
        print(f"run {run + 1}: {args.profile} threads={args.threads} prompt={len(tokens)} tokens "
              f"pp={pp:.1f} tokens/s gen={gen:.1f} tokens/s")


if __name__ == "__main__":
    main()
