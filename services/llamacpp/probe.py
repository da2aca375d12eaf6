"""Asks a running llama-server (serve.sh) one multiple-choice question and times it.

    python services/llamacpp/probe.py http://127.0.0.1:8811 [-n 20]

Prints /v1/models, then the full response JSON of a one-token chat completion with logprobs
(temperature 0, top_logprobs 10), then the seconds per request over -n repeats. Standard library only.
"""

import argparse
import json
import statistics
import time
import urllib.request

QUESTION = (
    "The nurse notified the patient that his shift would be ending in an hour.\n"
    "Who does 'his' refer to?\n"
    "A. the nurse\n"
    "B. the patient\n"
    "Answer with A or B."
)


def call(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.load(response)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url", help="e.g. http://127.0.0.1:8811")
    parser.add_argument("-n", type=int, default=20, help="timed repeats (default 20)")
    args = parser.parse_args()
    base = args.base_url.rstrip("/")

    print(json.dumps(call(f"{base}/v1/models"), indent=2))
    body = {
        "messages": [{"role": "user", "content": QUESTION}],
        "max_tokens": 1,
        "temperature": 0,
        "logprobs": True,
        "top_logprobs": 10,
    }
    first = call(f"{base}/v1/chat/completions", body)
    print(json.dumps(first, indent=2, ensure_ascii=False))

    seconds = []
    for _ in range(args.n):
        started = time.perf_counter()
        again = call(f"{base}/v1/chat/completions", body)
        seconds.append(time.perf_counter() - started)
        if again["choices"][0]["logprobs"] != first["choices"][0]["logprobs"]:
            print("logprobs differ between identical requests")
    print(
        f"{args.n} requests: median {statistics.median(seconds):.3f} s, "
        f"min {min(seconds):.3f} s, max {max(seconds):.3f} s"
    )


if __name__ == "__main__":
    main()
