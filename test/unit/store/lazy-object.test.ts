// Lazy objects of large documents (runtime/store/lazy-object.ts, made by
// json-builder.ts): a big object's members stay as bytes until first read. Every
// way of reading, comparing, iterating and writing such an object must give what
// the same document built in full (parseJSON) gives, and a read must parse only
// the members it touches.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { RObject, applyWrite, buildDocumentSync, isLazyObject, materializedCount, parseJSON, toJSONText } from '../../../runtime/index.js';
import { generateDocumentText } from '../../../bench/memory-data.js';

const text = generateDocumentText(2e6, 3);
const lazyDoc = (t = text): RObject => buildDocumentSync(Buffer.from(t), { maxDepth: 1000 }) as RObject;
const fullDoc = parseJSON(text) as RObject;
/** A document whose `m` object is bigger than a run, with `extra` members appended. */
const withMembers = (extra: string): string => {
  const members = Array.from({ length: 5000 }, (_, i) => `"k${i}":{"v":${i},"s":"${'x'.repeat(60)}"}`);
  return `{"m":{${members.join(',')},${extra}}}`;
};
/** The object member `k` of an object. */
const member = (o: unknown, k: string): RObject => (o as RObject).getStr(k) as RObject;

describe('a big object of small members', () => {
  it('is built lazy: nothing parsed until read, then only what is read', () => {
    const doc = lazyDoc();
    const users = doc.getStr('users') as RObject;
    expect(isLazyObject(users)).toBe(true);
    expect(materializedCount(users)).toBe(0);
    expect(users.size).toBe((fullDoc.getStr('users') as RObject).size);
    expect(users.has('user-0000003')).toBe(true);
    expect(users.has('nobody')).toBe(false);
    expect(materializedCount(users)).toBe(0);
    const one = users.getStr('user-0000003') as RObject;
    expect(toJSONText(one)).toBe(toJSONText((fullDoc.getStr('users') as RObject).getStr('user-0000003')!));
    expect(users.getStr('user-0000003')).toBe(one); // parsed once, then kept
    expect(materializedCount(users)).toBe(1);
  });

  it('writes the same JSON, compares equal and iterates the same as the full document', () => {
    const doc = lazyDoc();
    expect(toJSONText(doc)).toBe(toJSONText(fullDoc));
    const users = doc.getStr('users') as RObject;
    const full = fullDoc.getStr('users') as RObject;
    expect(users.keys()).toEqual(full.keys());
    let n = 0;
    users.forEachUnordered(() => (n++, false));
    expect(n).toBe(full.size);
    expect(toJSONText(users.clone())).toBe(toJSONText(full));
  });

  it('gives the same query results as the full document', () => {
    const policy = compile([
      {
        file: 'p.rego',
        text: [
          'package p',
          'admins contains k if { some k, u in data.big.users; "admin" in u.roles }',
          'by_city[c] := count([k | some k, u in data.big.users; u.location.city == c]) if { some c in {"Berlin", "Geneva"} }',
          'same if data.big.users == data.full.users',
          'one := data.big.users["user-0000042"].email',
          'missing := object.get(data.big.users, "nobody", "none")',
          'n := count(data.big.users)',
          'first := sort([k | data.big.users[k]])[0]',
        ].join('\n'),
      },
    ]);
    const data = new RObject();
    data.set('big', lazyDoc());
    data.set('full', fullDoc);
    const rows = policy.prepare('data.p').eval({ data });
    const got = toJSONText(rows[0]!.expressions[0]!.value);
    const fullData = new RObject();
    fullData.set('big', fullDoc);
    fullData.set('full', fullDoc);
    const want = toJSONText(policy.prepare('data.p').eval({ data: fullData })[0]!.expressions[0]!.value);
    expect(got).toBe(want);
    expect(got).toContain('"same":true');
  });

  it('is copied, not parsed, by a store write below it; the original is unchanged', () => {
    const root = new RObject();
    root.set('big', lazyDoc());
    const users = (root.getStr('big') as RObject).getStr('users') as RObject;
    const a = applyWrite(root, { op: 'add', path: ['big', 'users', 'new-user'], value: parseJSON('{"name":"n"}') });
    const b = applyWrite(a, { op: 'remove', path: ['big', 'users', 'user-0000001'] });
    const c = applyWrite(b, { op: 'replace', path: ['big', 'users', 'user-0000002', 'email'], value: 'x@y' });
    expect(materializedCount(users)).toBe(0);
    const after = (c.getStr('big') as RObject).getStr('users') as RObject;
    expect(isLazyObject(after)).toBe(true);
    expect(after.size).toBe(users.size); // one added, one removed
    expect(after.has('user-0000001')).toBe(false);
    expect(after.getStr('user-0000001')).toBeUndefined();
    expect(toJSONText(after.getStr('new-user')!)).toBe('{"name":"n"}');
    expect(toJSONText((after.getStr('user-0000002') as RObject).getStr('email')!)).toBe('"x@y"');
    expect(users.has('new-user')).toBe(false);
    expect(toJSONText(users.getStr('user-0000002')!)).toBe(toJSONText((fullDoc.getStr('users') as RObject).getStr('user-0000002')!));
    const want = parseJSON(toJSONText(fullDoc.getStr('users')!)) as RObject;
    want.set('new-user', parseJSON('{"name":"n"}'));
    want.delete('user-0000001');
    (want.getStr('user-0000002') as RObject).set('email', 'x@y');
    expect(toJSONText(after)).toBe(toJSONText(want));
  });

  it('parses every member once when iterated, keeping writes and removals made before', () => {
    const doc = lazyDoc();
    const users = doc.getStr('users') as RObject;
    const full = fullDoc.getStr('users') as RObject;
    const one = users.getStr('user-0000005');
    users.set('user-0000006', 'written');
    users.delete('user-0000007');
    users.set('added', true);
    const seen = new Map<string, string>();
    users.forEachUnordered((k, v) => (seen.set(k as string, toJSONText(v)), false));
    expect(materializedCount(users)).toBe(users.size);
    expect(users.size).toBe(full.size);
    expect(users.getStr('user-0000005')).toBe(one); // parsed before: kept, not parsed again
    expect(seen.get('user-0000006')).toBe('"written"');
    expect(seen.has('user-0000007')).toBe(false);
    expect(seen.get('added')).toBe('true');
    expect(seen.get('user-0000042')).toBe(toJSONText(full.getStr('user-0000042')!));
  });

  it('stays lazy below a placeholder (the main thread’s RObject.lazy) that a write loads', () => {
    const text = withMembers('"last":true');
    let loads = 0;
    const root = new RObject();
    root.set('doc', RObject.lazy(() => (loads++, lazyDoc(text))));
    const after = applyWrite(root, { op: 'add', path: ['doc', 'm', 'new'], value: 1 });
    expect(loads).toBe(1);
    const m = member(after.getStr('doc'), 'm');
    expect(isLazyObject(m)).toBe(true);
    expect(materializedCount(m)).toBe(1); // only the member written
    expect(m.getStr('new')).toBe(1);
    expect(toJSONText(m.getStr('k1')!)).toBe(toJSONText(member(parseJSON(text), 'm').getStr('k1')!));
  });
});

describe('lazy members', () => {
  it('keep the last value of a duplicated key, small or big', () => {
    const big = `{"list":[${Array.from({ length: 30000 }, (_, i) => i).join(',')}]}`;
    for (const extra of ['"k7":"again"', `"k7":${big}`, `"d":${big},"d":1`, `"d":1,"d":${big}`, `"d":1,"d":${big},"d":[2]`]) {
      const t = withMembers(extra);
      const doc = lazyDoc(t);
      expect(isLazyObject(doc.getStr('m'))).toBe(true);
      expect(toJSONText(doc)).toBe(toJSONText(parseJSON(t)));
      expect(member(doc, 'm').size).toBe(member(parseJSON(t), 'm').size);
    }
  });

  it('keep numbers a double cannot hold exactly, escaped keys and -0', () => {
    const t = withMembers('"big":12345678901234567890123,"e":1e400,"z":-0,"k\\u00e9y":{"n":[0.1,-0]},"__proto__":{"a":1}');
    const doc = lazyDoc(t);
    const m = doc.getStr('m') as RObject;
    expect(toJSONText(m.getStr('big')!)).toBe('12345678901234567890123');
    expect(toJSONText(m.getStr('kéy')!)).toBe(toJSONText(member(parseJSON(t), 'm').getStr('kéy')!));
    expect(m.getStr('z')).toBe(0);
    expect(toJSONText(m.getStr('__proto__')!)).toBe('{"a":1}');
    expect(toJSONText(doc)).toBe(toJSONText(parseJSON(t)));
  });

  it('are refused when invalid, before the document is used', () => {
    expect(() => lazyDoc(withMembers('"bad":{"a":tru}'))).toThrow('invalid JSON');
    expect(() => lazyDoc(withMembers('"bad":"\u0001"'))).toThrow('invalid JSON');
    expect(() => buildDocumentSync(Buffer.from(withMembers('"deep":[[[[1]]]]')), { maxDepth: 4 })).toThrow('exceeded max depth');
  });

  it('make a top-level object of few members an ordinary one', () => {
    const t = withMembers('"last":true').slice(5, -1); // the `m` object itself, at the top
    const doc = lazyDoc(t);
    expect(isLazyObject(doc)).toBe(false);
    expect(toJSONText(doc)).toBe(toJSONText(parseJSON(t)));
  });
});
