/**
 * JSON Merge Patch (RFC 7396 §2), the algorithm in the RFC's pseudo-code:
 *
 *   define MergePatch(Target, Patch):
 *     if Patch is an Object:
 *       if Target is not an Object: Target = {}
 *       for each Name/Value pair in Patch:
 *         if Value is null: remove Name from Target (if present)
 *         else: Target[Name] = MergePatch(Target[Name], Value)
 *       return Target
 *     else: return Patch
 *
 * Pure and non-mutating: returns a new value and never touches `target` or `patch`. Members are
 * defined, not assigned, so a `__proto__` key in an untrusted patch stays an ordinary member
 * (which strict validation then refuses as unknown) instead of replacing a prototype.
 */

export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function define(object: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = {};
  if (isJsonObject(target)) for (const key of Object.keys(target)) define(result, key, target[key]);
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete result[key];
    else define(result, key, applyMergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}
