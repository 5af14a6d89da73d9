// The noisy-neighbour scenario: the p99 latency of a GET by key from 12 connections, first alone, then
// while 4 connections of another user send the worst nested any() read the limits allow (it runs in a
// read thread to its deadline, and past that user's share of the thread queue it is refused). Target:
// the p99 under the noise at most 10x the quiet one and at most 100 ms.

/** The worst lambda read the limits allow: two nested any() over an ECN's comments, contains() inside. */
const WORST = "engChangeNoticeComments?$filter=engChangeNotice/engChangeNoticeComments/any(a:a/engChangeNotice/engChangeNoticeComments/any(b:contains(b/comment,'zz')))&$top=1";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `connections` loops of GET `url` for `seconds`; every latency in ms (2xx only) and the other statuses. */
async function loop(url, headers, connections, seconds) {
  const latencies = [];
  const others = new Map();
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await fetch(url, { headers });
        await r.arrayBuffer();
        if (r.ok) latencies.push(performance.now() - t0);
        else others.set(r.status, (others.get(r.status) ?? 0) + 1);
      }
    }),
  );
  return { latencies, others };
}

const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? NaN;

/**
 * Runs the scenario against `base` (a company-scoped service root): `token` is the measured user's,
 * `noisyToken` the other user's. Resolves with both p99s, their ratio and whether the target is met.
 */
export async function noisyNeighbour({ base, token, noisyToken, seconds = 5 }) {
  const headers = { Authorization: `Bearer ${token}` };
  const first = await (await fetch(`${base}/engChangeNotices?$top=1&$select=id`, { headers })).json();
  const byKey = `${base}/engChangeNotices(${first.value[0].id})`;
  await loop(byKey, headers, 12, 1); // warm-up
  const quiet = await loop(byKey, headers, 12, seconds);
  let stop = false;
  const noise = new Map();
  const noisy = Array.from({ length: 4 }, async () => {
    while (!stop) {
      const r = await fetch(`${base}/${WORST}`, { headers: { Authorization: `Bearer ${noisyToken}` } });
      await r.arrayBuffer();
      noise.set(r.status, (noise.get(r.status) ?? 0) + 1);
      // A refused client backs off before it sends again (less than the Retry-After it was given).
      if (r.status === 429 || r.status === 503) await sleep(200);
    }
  });
  await sleep(200); // the noise is under way
  const loaded = await loop(byKey, headers, 12, seconds);
  stop = true;
  await Promise.all(noisy);
  const quietP99 = p99(quiet.latencies);
  const noisyP99 = p99(loaded.latencies);
  return {
    quietP99,
    noisyP99,
    ratio: noisyP99 / quietP99,
    requests: { quiet: quiet.latencies.length, noisy: loaded.latencies.length },
    failed: Object.fromEntries([...quiet.others, ...loaded.others]),
    noise: Object.fromEntries(noise),
    met: noisyP99 <= 10 * quietP99 && noisyP99 <= 100,
  };
}

/** The report line of a result. */
export function formatNoisyNeighbour(r) {
  return (
    `noisy neighbour: ecn-by-key p99 from 12 connections ${r.quietP99.toFixed(2)} ms alone (${r.requests.quiet} requests), ` +
    `${r.noisyP99.toFixed(2)} ms beside 4 connections of nested any() reads (${r.requests.noisy}; those answered ${JSON.stringify(r.noise)}): ` +
    `${r.ratio.toFixed(1)}x (${r.met ? 'met' : 'NOT met'}: <= 10x and <= 100 ms)` +
    (Object.keys(r.failed).length > 0 ? `; non-2xx by-key answers ${JSON.stringify(r.failed)}` : '') +
    (r.peakMiB === undefined ? '' : `; peak RSS after it ${r.peakMiB.toFixed(1)} MiB (a read thread's heap included)`)
  );
}
