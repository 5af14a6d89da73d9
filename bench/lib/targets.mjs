// The targets of issue 7, checked on the harness's JSON: every scenario req/s >= 5x CAP's and p99 <=
// CAP's / 3; ecn-by-key >= 0.7x and ecn-page-top100 >= 1.0x the raw anchor; our peak RSS <= 120 MiB.

export const TARGETS = { rpsVsCap: 5, p99VsCap: 1 / 3, rawByKey: 0.7, rawPage: 1.0, peakRssMiB: 120 };
const RAW_TARGET = { 'ecn-by-key': TARGETS.rawByKey, 'ecn-page-top100': TARGETS.rawPage };

/** One row per scenario with the numbers and whether each target is met. */
export function checkTargets(doc, peak) {
  const rows = doc.scenarios.map((s) => {
    const t = (name) => (s.targets[name]?.status === 'ok' ? s.targets[name] : undefined);
    const ours = t('ours');
    const cap = t('cap');
    const raw = t('raw');
    const rpsRatio = ours && cap ? ours.rps / cap.rps : undefined;
    const p99Ratio = ours && cap && ours.p99 > 0 ? cap.p99 / ours.p99 : undefined;
    const rawRatio = ours && raw ? ours.rps / raw.rps : undefined;
    const rawTarget = RAW_TARGET[s.name];
    return {
      name: s.name,
      ours, cap, raw,
      rpsRatio, p99Ratio, rawRatio, rawTarget,
      okRps: rpsRatio !== undefined && rpsRatio >= TARGETS.rpsVsCap,
      okP99: p99Ratio !== undefined && p99Ratio >= 1 / TARGETS.p99VsCap,
      okRaw: rawTarget === undefined ? undefined : rawRatio !== undefined && rawRatio >= rawTarget,
    };
  });
  const hwm = peak.ours?.hwm ?? null;
  return { rows, peakOk: hwm !== null && hwm <= TARGETS.peakRssMiB };
}

const f = (x, d = 0) => (x === undefined || x === null || Number.isNaN(x) ? '-' : x.toFixed(d));

/** The check table as text (Markdown-compatible). */
export function formatChecks({ rows, peakOk }, peak, run) {
  const head = ['scenario', 'ours req/s', 'cap req/s', 'raw req/s', 'ours/cap', 'ours p99 ms', 'cap p99 ms', 'cap/ours p99', 'ours/raw', 'cpu µs/req ours/cap/raw', 'targets'];
  const body = rows.map((r) => {
    const miss = [];
    if (!r.okRps) miss.push(`req/s ${f(r.rpsRatio, 1)}x<5x`);
    if (!r.okP99) miss.push(`p99 ${f(r.p99Ratio, 1)}x<3x`);
    if (r.okRaw === false) miss.push(`raw ${f(r.rawRatio, 2)}x<${r.rawTarget}x`);
    return [
      r.name, f(r.ours?.rps), f(r.cap?.rps), f(r.raw?.rps), `${f(r.rpsRatio, 1)}x`, f(r.ours?.p99, 2), f(r.cap?.p99, 2), `${f(r.p99Ratio, 1)}x`,
      r.rawRatio === undefined ? '' : `${f(r.rawRatio, 2)}x`,
      `${f(r.ours?.serverCpuUsPerReq)}/${f(r.cap?.serverCpuUsPerReq)}/${f(r.raw?.serverCpuUsPerReq)}`,
      miss.length === 0 ? 'met' : `MISSED: ${miss.join(', ')}`,
    ];
  });
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const mem = (p) => (p ? `${p.hwm.toFixed(1)} MiB` : '-');
  return [
    `targets (issue 7): req/s >= 5x CAP and p99 <= CAP/3 per scenario; ecn-by-key >= 0.7x raw; ecn-page-top100 >= 1.0x raw; peak RSS <= 120 MiB`,
    line(head),
    line(head.map(() => '---')),
    ...body.map(line),
    '',
    `peak RSS (VmHWM): ours ${mem(peak.ours)} (${peakOk ? 'met' : 'MISSED'}: <= 120 MiB), cap ${mem(peak.cap)}, raw ${mem(peak.raw)}`,
    `run: ${run.duration} s x ${run.rounds} rounds + ${run.warmup} s warm-up per scenario and target, ${run.connections} connections; ours runs with node ${run.oursFlags || '(no flags)'}; whole bench ${f(run.seconds)} s`,
  ].join('\n');
}
