/**
 * Builds the hook registry from the explicit module list (`src/rules/index.ts`) and checks it against
 * the model at start-up, so a typo stops the service instead of silently skipping a rule (Fastify's
 * `Hooks.validate`): every module names an existing entity type, at most one module per type, only
 * known hook names, functions only, and actions the model declares on that type. Framework modules
 * (checks the framework owns, such as the webhook subscription's security checks in src/events) are
 * not the rule author's to turn off: their phases run before the rule module's of the same type.
 */
import type { EdmModel, EntityType } from '../edm/model.js';
import { chooseFrom } from '../edm/suggest-name.js';
import { HOOK_NAMES, validatesUpdate, type ActionHandler, type EntityHooks } from './types.js';

/** A hook module that does not fit the model or the hook interface; `code` says which check failed. */
export class HookRegistryError extends Error {
  constructor(
    readonly code: 'HOOK_INVALID_MODULE' | 'HOOK_UNKNOWN_ENTITY_TYPE' | 'HOOK_DUPLICATE_MODULE' | 'HOOK_NOT_SUPPORTED' | 'HOOK_INVALID_HANDLER' | 'HOOK_UNKNOWN_ACTION' | 'HOOK_INVALID_FIELDS',
    message: string,
  ) {
    super(message);
    this.name = 'HookRegistryError';
  }
}

/** The checked hooks of a service, looked up by entity type. */
export interface HookRegistry {
  /** The module of a type, if it has one. */
  forType(type: EntityType): EntityHooks | undefined;
  /** The implementation of a bound action of a type, if registered. */
  action(type: EntityType, actionName: string): ActionHandler | undefined;
}

const MODULE_KEYS: readonly string[] = ['entityType', ...HOOK_NAMES];

function describe(value: unknown): string {
  return Object.prototype.toString.call(value).slice(8, -1);
}

function checkModule(model: EdmModel, module: EntityHooks, position: number): EntityType {
  if (module === null || typeof module !== 'object') {
    throw new HookRegistryError('HOOK_INVALID_MODULE', `Hook module #${position} is a ${describe(module)}; export an object made with defineHooks({...}).`);
  }
  const name: unknown = module.entityType;
  const label = `Hook module #${position} (${typeof name === 'string' ? name : '?'})`;
  if (typeof name !== 'string') throw new HookRegistryError('HOOK_INVALID_MODULE', `${label} has no entityType; name the entity type it belongs to.`);
  const type = model.entityTypeByName.get(name);
  if (type === undefined) {
    const fix = chooseFrom(name, model.entityTypes.map((t) => t.name), 'an entity type of the model');
    throw new HookRegistryError('HOOK_UNKNOWN_ENTITY_TYPE', `${label}: there is no entity type '${name}'; ${fix}.`);
  }
  for (const [key, value] of Object.entries(module)) {
    if (!MODULE_KEYS.includes(key)) {
      throw new HookRegistryError('HOOK_NOT_SUPPORTED', `${label}: '${key}' is not a supported hook; ${chooseFrom(key, MODULE_KEYS.filter((k) => k !== 'entityType'))}.`);
    }
    if (key === 'validatesOnUpdate') {
      checkValidatedProperties(type, module, label);
      continue;
    }
    if (key === 'entityType' || key === 'actions' || value === undefined) continue;
    if (typeof value !== 'function') throw new HookRegistryError('HOOK_INVALID_HANDLER', `${label}: '${key}' must be a function, not a ${describe(value)}.`);
  }
  for (const [action, handler] of Object.entries(module.actions ?? {})) {
    if (!type.actions.some((a) => a.name === action)) {
      const fix = chooseFrom(action, type.actions.map((a) => a.name), 'an action declared in its metadata file');
      throw new HookRegistryError('HOOK_UNKNOWN_ACTION', `${label}: ${type.name} declares no action '${action}'; ${fix}.`);
    }
    if (typeof handler !== 'function') throw new HookRegistryError('HOOK_INVALID_HANDLER', `${label}: action '${action}' must be a function, not a ${describe(handler)}.`);
  }
  return type;
}

/** `validatesOnUpdate`: a list of the type's stored properties, beside a validateWrite. */
function checkValidatedProperties(type: EntityType, module: EntityHooks, label: string): void {
  const fields: unknown = module.validatesOnUpdate;
  if (fields === undefined) return;
  if (!Array.isArray(fields) || fields.some((f) => typeof f !== 'string')) {
    throw new HookRegistryError('HOOK_INVALID_FIELDS', `${label}: 'validatesOnUpdate' must be a list of property names, not a ${describe(fields)}.`);
  }
  if (module.validateWrite === undefined) {
    throw new HookRegistryError('HOOK_INVALID_FIELDS', `${label}: 'validatesOnUpdate' names the properties validateWrite looks at, but the module has no validateWrite.`);
  }
  const stored = type.properties.filter((p) => p.storage.kind !== 'computed').map((p) => p.name);
  for (const name of fields as string[]) {
    if (!stored.includes(name)) {
      throw new HookRegistryError('HOOK_INVALID_FIELDS', `${label}: 'validatesOnUpdate' names '${name}', which is not a stored property of ${type.name}; ${chooseFrom(name, stored, 'a property of ' + type.name)}.`);
    }
  }
}

/** One module that runs the framework's phases first, then the rule module's; actions are the rule module's. */
function compose(framework: EntityHooks, rules: EntityHooks | undefined): EntityHooks {
  if (rules === undefined) return framework;
  const first = framework;
  const rule = rules;
  return {
    entityType: rules.entityType,
    ...(first.beforeWrite === undefined && rule.beforeWrite === undefined ? {} : {
      async beforeWrite(ctx) {
        await first.beforeWrite?.(ctx);
        await rule.beforeWrite?.(ctx);
      },
    }),
    ...(first.validateWrite === undefined && rule.validateWrite === undefined ? {} : {
      // The framework's checks may read (the subscription limits): awaited before the rule's run.
      async validateWrite(ctx) {
        await first.validateWrite?.(ctx);
        if (ctx.op === 'update' && first.validateWrite !== undefined && !validatesUpdate(rule, ctx.changed)) return;
        await rule.validateWrite?.(ctx);
      },
    }),
    // The framework's checks run on every update; only a rule module alone narrows them to its fields.
    ...(first.validateWrite === undefined && rule.validatesOnUpdate !== undefined ? { validatesOnUpdate: rule.validatesOnUpdate } : {}),
    ...(first.afterCommit === undefined && rule.afterCommit === undefined ? {} : {
      async afterCommit(ctx) {
        await first.afterCommit?.(ctx);
        await rule.afterCommit?.(ctx);
      },
    }),
    ...(rule.actions === undefined ? {} : { actions: rule.actions }),
  };
}

/**
 * Checks the rule modules against the model and indexes them with the framework's modules; throws
 * HookRegistryError on the first problem.
 */
export function buildHookRegistry(model: EdmModel, modules: readonly EntityHooks[], framework: readonly EntityHooks[] = []): HookRegistry {
  const byType = new Map<EntityType, EntityHooks>();
  modules.forEach((module, index) => {
    const type = checkModule(model, module, index + 1);
    if (byType.has(type)) {
      throw new HookRegistryError('HOOK_DUPLICATE_MODULE', `Hook module #${index + 1}: ${type.name} already has a hook module; keep all of its rules in one module.`);
    }
    byType.set(type, module);
  });
  for (const module of framework) {
    const type = model.entityTypeByName.get(module.entityType);
    if (type === undefined) throw new Error(`framework hook module for unknown entity type '${module.entityType}'`);
    byType.set(type, compose(module, byType.get(type)));
  }
  return {
    forType: (type) => byType.get(type),
    action: (type, actionName) => byType.get(type)?.actions?.[actionName],
  };
}
