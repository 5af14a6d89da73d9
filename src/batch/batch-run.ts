/**
 * Runs the units of a checked batch in order (OData 4.0 Part 1 §11.7.7.3; JSON Format §19.4):
 * - GETs that follow one another (none depending on another of them) form a read run: one snapshot
 *   (read-run.ts);
 * - any other request runs alone, as if sent alone (its own transaction);
 * - a change set / atomicity group runs in one transaction (change-set.ts).
 * A request whose dependency failed (JSON `dependsOn`, or the `$<id>` it refers to) is answered 424
 * without running. Without continue-on-error the batch stops at the first failure (the failure is the
 * last response); with it, the rest runs. `$<id>` in a URL stands for the entity request `<id>`
 * created or addressed, and so does a `@odata.bind` value `$<id>` in a body; `$<id>` as an If-Match
 * value for the ETag of its response.
 */
import { randomUUID } from 'node:crypto';
import type { ODataRequest, ODataResponse } from '../core/request.js';
import type { ServiceContext } from '../core/service-context.js';
import { OWN_TRANSACTION, ownRunners, type CreatedEntity, type OperationRunners } from '../core/operation-runners.js';
import { FailedDependencyError } from '../errors/odata-error.js';
import { answerError } from '../core/answer-error.js';
import { keyLiteral } from '../serialize/context-url.js';
import { referencedEtagId, referencedId, type BatchPart, type BatchRequest, type BatchUnit } from './batch-request.js';
import { ChangeSetTransaction } from './change-set.js';
import { bodyReferences, resolveBodyReferences } from './body-references.js';
import { partTarget, type BatchBase } from './part-url.js';
import { ReadRun } from './read-run.js';
import { batchWorkError } from './batch-work.js';
import { batchReadIntent } from '../core/read-intent.js';
import type { ReadRunner as EngineReads } from '../db/engine.js';
import type { PartHandler } from '../core/service-context.js';
import type { PartResult, UnitResult } from './write-batch-response.js';

/** What a request that ran left for later ones: whether it succeeded, the URL `$<id>` stands for, its ETag. */
interface Outcome {
  readonly ok: boolean;
  /** Service-root-relative URL of the entity it created or addressed, or why there is none. */
  readonly resource: string | { readonly error: string };
  readonly etag: string | undefined;
}

/** A 2xx, or the 304 of a conditional GET (core/conditional-get.ts): the request did what was asked. */
function succeeded(res: ODataResponse): boolean {
  return (res.status >= 200 && res.status < 300) || res.status === 304;
}

function header(res: ODataResponse, name: string): string | undefined {
  const v = res.headers[name];
  return typeof v === 'string' ? v : undefined;
}

/** One batch being run. */
export class BatchRun {
  private readonly outcomes = new Map<string, Outcome>();
  private readonly groups = new Map<string, boolean>();
  private readonly results: UnitResult[] = [];
  /** URLs of the entities the parts of the running change set create or address, before it commits. */
  private readonly pending = new Map<BatchPart, Outcome['resource']>();
  private stopped = false;
  private seq = 0;
  /** Bytes the batch's answer may still take (limits.maxResponseBytes): the parts' bodies are held together. */
  private left: number;
  /** The work the batch's reads that ran were charged (limits.maxBatchWork, batch-work.ts). */
  private spent = 0;
  /** Where the batch's GETs read (run sets it from the batch's intent). */
  private reads: EngineReads;

  constructor(
    private readonly svc: ServiceContext,
    private readonly batchRequest: ODataRequest,
    private readonly base: BatchBase,
    private readonly handlePart: PartHandler,
    private readonly continueOnError: boolean,
  ) {
    this.left = svc.model.service.maxResponseBytes;
    this.reads = svc.engine.reads;
  }

  /** The response budget of each of `n` parts about to run together. */
  private share(n: number): number {
    return Math.max(0, Math.floor(this.left / n));
  }

  /** Runs the batch; the results of the units run, in order. */
  async run(batch: BatchRequest): Promise<UnitResult[]> {
    // A batch of GETs only, with the header, may read on a replica; any other reads its own writes.
    const methods = batch.units.map((u) => (u.kind === 'request' ? u.part.method : 'changeSet'));
    this.reads = this.svc.engine.readsFor(batchReadIntent(this.batchRequest.headers, methods));
    let reads: BatchPart[] = [];
    for (const unit of batch.units) {
      if (unit.kind === 'request' && isRead(unit.part) && !reads.some((r) => r.id !== undefined && dependencies(unit.part).includes(r.id))) {
        reads.push(unit.part);
        continue;
      }
      if (reads.length > 0) await this.runReads(reads);
      reads = [];
      if (this.stopped) break;
      if (unit.kind === 'request' && isRead(unit.part)) reads.push(unit.part);
      else if (unit.kind === 'request') await this.runAlone(unit.part);
      else await this.runChangeSet(unit);
      if (this.stopped) break;
    }
    if (reads.length > 0 && !this.stopped) await this.runReads(reads);
    return this.results;
  }

  /** A request that is not a GET, on its own: as if sent alone. */
  private async runAlone(part: BatchPart): Promise<void> {
    const response = this.blocked(part) ?? (await this.handle(part, { ...ownRunners(this.svc), inBatch: true, responseBytes: this.share(1) }));
    this.finish({ kind: 'request', result: { part, response } }, [{ part, response }]);
  }

  /** GETs that follow one another: handled up to their reads, which then run together in one snapshot. */
  private async runReads(parts: readonly BatchPart[]): Promise<void> {
    const run = new ReadRun(this.reads);
    const responseBytes = this.share(parts.length);
    const responses: Promise<ODataResponse>[] = [];
    for (const [i, part] of parts.entries()) {
      const blocked = this.blocked(part);
      if (blocked !== undefined) {
        responses.push(Promise.resolve(blocked));
        continue;
      }
      const response = this.handle(part, { reads: run.runnerFor(i), writes: OWN_TRANSACTION, inBatch: true, responseBytes });
      await Promise.race([run.handedOver(i), response]);
      responses.push(response);
    }
    await this.charge(run);
    await run.flush();
    const answered = await Promise.all(responses);
    for (const [i, part] of parts.entries()) {
      const response = answered[i] as ODataResponse;
      this.finish({ kind: 'request', result: { part, response } }, [{ part, response }]);
      if (this.stopped) return;
    }
  }

  /**
   * Charges the batch's budget the work of a run's reads before they run. Past it, a batch of which
   * nothing has run yet is refused whole (the error is the batch's 400); otherwise the run's GETs
   * answer that 400 each, and the batch goes on or stops as after any failed request.
   */
  private async charge(run: ReadRun): Promise<void> {
    let work: number;
    try {
      work = await run.fullWork();
    } catch (e) {
      run.abort(e);
      throw e;
    }
    const refused = batchWorkError(this.spent, work, this.svc.model.service.maxBatchWork);
    if (refused === undefined) {
      this.spent += work;
      return;
    }
    run.abort(refused);
    if (this.results.length === 0) throw refused;
  }

  /** A change set: every part prepared in order, then all of their transaction bodies in one transaction. */
  private async runChangeSet(unit: Extract<BatchUnit, { kind: 'changeSet' }>): Promise<void> {
    const tx = new ChangeSetTransaction();
    const responseBytes = this.share(unit.parts.length);
    const responses: Promise<ODataResponse>[] = [];
    let failed: number | undefined;
    for (const [i, part] of unit.parts.entries()) {
      const blocked = this.blocked(part);
      if (blocked !== undefined) {
        responses.push(Promise.resolve(blocked));
        failed = i;
        break;
      }
      const writes = tx.runnerFor(i, (created) => this.prepared(part, created));
      const response = this.handle(part, { reads: this.svc.engine.reads, writes, inBatch: true, responseBytes });
      const ready = await Promise.race([tx.prepared(i).then(() => true), response.then(() => false)]);
      responses.push(response);
      if (!ready && !succeeded(await response)) {
        failed = i;
        break;
      }
    }
    const labels = unit.parts.map((p) => p.label);
    if (failed === undefined) failed = await tx.commit(this.svc, labels);
    else tx.abort(new FailedDependencyError(`Not applied: ${labels[failed] ?? 'another request'} of the same change set failed, and a change set is applied whole or not at all.`));
    const answered = await Promise.all(responses);
    const results: PartResult[] = unit.parts.map((part, i) => ({
      part,
      response: answered[i] ?? answerError(this.svc, new FailedDependencyError(`Not attempted: ${labels[failed ?? 0] ?? 'an earlier request'} of the same change set failed.`), this.batchRequest.requestId),
    }));
    const failure = failed === undefined ? undefined : results[failed];
    this.finish({ kind: 'changeSet', group: unit.group, results, ...(failure === undefined ? {} : { failure }) }, results, unit.group, failure === undefined);
  }

  /** A part of a change set handed over its transaction body: what `$<id>` of it stands for from now on. */
  private prepared(part: BatchPart, created: CreatedEntity | undefined): void {
    const path = this.targetOf(part).path.replace(/^\//, '');
    if (created === undefined) this.pending.set(part, path);
    else if (created.key === undefined || created.key === null) this.pending.set(part, { error: 'its key is given when it is written, so a request of the same change set cannot address it; send that request after the change set.' });
    else this.pending.set(part, `${path}(${keyLiteral(created.type, created.key)})`);
  }

  /** Records what the unit's requests gave, and whether the batch stops here. */
  private finish(result: UnitResult, parts: readonly PartResult[], group?: string, groupOk?: boolean): void {
    this.results.push(result);
    for (const { part, response } of parts) {
      this.left -= (response.body?.length ?? 0) + 256; // its body, and room for its status line and headers
      const ok = groupOk ?? succeeded(response);
      if (part.id !== undefined) this.outcomes.set(part.id, { ok, resource: this.resourceOf(part, response, ok), etag: header(response, 'ETag') });
      this.pending.delete(part);
    }
    if (group !== undefined) this.groups.set(group, groupOk === true);
    const failed = group === undefined ? parts.some((p) => !succeeded(p.response)) : groupOk !== true;
    if (failed && !this.continueOnError) this.stopped = true;
  }

  /** The URL `$<id>` of a request that ran stands for. */
  private resourceOf(part: BatchPart, response: ODataResponse, ok: boolean): Outcome['resource'] {
    if (!ok) return { error: `that request failed (${response.status}).` };
    const pending = this.pending.get(part);
    if (pending !== undefined) return pending;
    const location = header(response, 'Location');
    const root = `${this.base.serviceRootUrl}/`;
    if (location !== undefined && location.startsWith(root)) return location.slice(root.length);
    if (part.method === 'GET' || part.method === 'PATCH' || part.method === 'PUT') return this.targetOf(part).path.replace(/^\//, '');
    return { error: 'that request neither created nor addressed an entity.' };
  }

  /** The 424 response of a request whose dependency failed or that has an `if` condition, or undefined. */
  private blocked(part: BatchPart): ODataResponse | undefined {
    const fail = (message: string): ODataResponse => answerError(this.svc, new FailedDependencyError(message), this.batchRequest.requestId);
    if (part.condition !== undefined) return fail(`${cap(part.label)} has an "if" condition; conditions on requests are not supported, so it was not run.`);
    for (const d of dependencies(part)) {
      const inChangeSet = [...this.pending.keys()].some((p) => p.id === d);
      if (inChangeSet) continue;
      const ok = this.groups.get(d) ?? this.outcomes.get(d)?.ok;
      if (ok !== true) return fail(`${cap(part.label)} was not run: '${d}', which it depends on, ${ok === undefined ? 'did not run' : 'failed'}.`);
    }
    return undefined;
  }

  private targetOf(part: BatchPart): { path: string; rawQuery: string } {
    return partTarget(part.url, this.base, part.label, (id) => this.referenced(id));
  }

  private referenced(id: string): string | { error: string } {
    for (const [p, resource] of this.pending) if (p.id === id) return resource;
    return this.outcomes.get(id)?.resource ?? { error: 'no request before it has that id.' };
  }

  /** Handles one part: its request built (references resolved), then the pipeline; never rejects. */
  private handle(part: BatchPart, runners: OperationRunners): Promise<ODataResponse> {
    const requestId = `${this.batchRequest.requestId}.${++this.seq}`;
    let req: ODataRequest;
    try {
      req = this.requestOf(part, requestId);
    } catch (e) {
      return Promise.resolve(answerError(this.svc, e, requestId));
    }
    return Promise.resolve(this.handlePart(req, runners));
  }

  private requestOf(part: BatchPart, requestId: string): ODataRequest {
    const target = this.targetOf(part);
    const headers: Record<string, string> = { ...part.headers };
    // The part runs with the batch's principal; a copy of the batch's credentials (OpenUI5 sends one) goes no further.
    delete headers['authorization'];
    delete headers['proxy-authorization'];
    for (const name of ['if-match', 'if-none-match']) {
      const ref = referencedEtagId(headers[name]);
      if (ref === undefined) continue;
      const etag = this.outcomes.get(ref)?.etag;
      if (etag === undefined) throw new FailedDependencyError(`The ${name === 'if-match' ? 'If-Match' : 'If-None-Match'} of ${part.label} refers to $${ref}, whose response has no ETag (it failed, has none, or belongs to the same change set).`);
      headers[name] = etag;
    }
    const body = resolveBodyReferences(part, (id) => this.referenced(id));
    return {
      method: part.method,
      path: target.path,
      rawQuery: target.rawQuery,
      headers,
      ...(body === undefined ? {} : { body }),
      serviceRootUrl: this.batchRequest.serviceRootUrl,
      requestId: requestId.length > 120 ? randomUUID() : requestId,
      ...(this.batchRequest.clientAddress === undefined ? {} : { clientAddress: this.batchRequest.clientAddress }),
    };
  }
}

/** A request that may join a read run: a GET without a condition. */
function isRead(part: BatchPart): boolean {
  return (part.method === 'GET' || part.method === 'HEAD') && part.condition === undefined;
}

/** The ids a request depends on: its `dependsOn`, and the requests its URL, If-Match and body bindings refer to. */
function dependencies(part: BatchPart): string[] {
  const ids = [...part.dependsOn, ...bodyReferences(part)];
  const url = referencedId(part.url);
  if (url !== undefined) ids.push(url);
  for (const h of ['if-match', 'if-none-match']) {
    const ref = referencedEtagId(part.headers[h]);
    if (ref !== undefined) ids.push(ref);
  }
  return ids;
}

function cap(label: string): string {
  return label.charAt(0).toUpperCase() + label.slice(1);
}
