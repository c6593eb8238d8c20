// The code that runs inside the QuickJS wall (student-wall.ts) before her module: it takes away
// what a module must not use (each replaced by a sentence saying why), and returns the three
// functions the host calls: bind (reads her default export), call (runs init, step or report on
// arguments that arrive as JSON and answers JSON) and describe (an exception as plain text).
// Her module shares this realm, so she could tamper with what it uses; that buys her nothing:
// whatever it answers is only text, parsed and checked by the host like any result of hers.
//
// Answers are one string: 'J' + JSON (a result), 'R' + a sentence (a result that is not plain
// data), 'T' + JSON (what she threw, described). JSON carries four values it has no words for as
// tagged strings, the same both ways (encodeTagged/decodeTagged on the host): "\u0000u" undefined,
// "\u0000n" NaN, "\u0000+" Infinity, "\u0000-" -Infinity; a string of hers that starts with
// \u0000 is sent as "\u0000s" + the string.
export const WALL_PRELUDE = String.raw`(function (hostRandom) {
  'use strict';
  const G = globalThis;
  const apply = Reflect.apply;
  const stringify = JSON.stringify, parse = JSON.parse;
  const getPrototypeOf = Object.getPrototypeOf, keys = Object.keys, defineProperty = Object.defineProperty, freeze = Object.freeze;
  const isArray = Array.isArray, ObjectProto = Object.prototype, toTag = Object.prototype.toString;
  const ErrorCtor = Error, StringCtor = String;
  const push = Array.prototype.push;
  const indexOf = String.prototype.indexOf, slice = String.prototype.slice;
  const TAG = '\u0000';
  const MAX_VALUES = 20000, MAX_TEXT = 500;
  let def, lastThrow = null;

  const refuse = (name, why) => function () { throw new ErrorCtor(name + ' is not available here: ' + why); };
  const fixed = (o, name, value) => defineProperty(o, name, { value, writable: false, configurable: false, enumerable: false });
  const clock = 'a module has no clock: use ctx.now (ms since the process started) and timers';
  const NoDate = refuse('Date', clock);
  fixed(NoDate, 'now', refuse('Date.now', clock));
  fixed(G, 'Date', NoDate);
  fixed(Math, 'random', refuse('Math.random', 'use ctx.random (seeded by the host, so runs repeat)'));
  // Timers are the honest mistake among what is missing: each says what to use instead.
  const timer = 'timers are effects: return { kind: "set-timer", name, after }';
  for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'requestAnimationFrame']) fixed(G, name, refuse(name, timer));
  fixed(G, 'queueMicrotask', refuse('queueMicrotask', 'a step runs to its end: there is no later within it'));
  // console.log while debugging must not break a module; its output goes nowhere (the trace is where to look).
  const quiet = () => undefined;
  fixed(G, 'console', freeze({ log: quiet, info: quiet, warn: quiet, error: quiet, debug: quiet }));
  // Every throw statement of hers passes its value through here (student-wall.ts rewrites them),
  // so a thrown value that is no Error, and so has no stack, is still located.
  fixed(G, '__wallThrow', (value, line, column) => { lastThrow = { line, column }; return value; });

  function Refusal(message) { this.message = message; }
  const text = (x) => { const s = StringCtor(x); return s.length > MAX_TEXT ? apply(slice, s, [0, MAX_TEXT]) + '...' : s; };

  // Native JSON.stringify does the writing; the replacer refuses what is not plain data and tags
  // the four values JSON has no words for. (An own toJSON is called first, as JSON does.)
  function encode(root, rootPath) {
    let budget = MAX_VALUES;
    const at = (k) => (k === '' ? rootPath : rootPath + ': the value at key ' + stringify(k));
    const replacer = function (k, x) {
      if (--budget < 0) throw new Refusal(rootPath + ' is too large (over 20,000 values)');
      switch (typeof x) {
        case 'string': return x[0] === TAG ? TAG + 's' + x : x;
        case 'boolean': return x;
        case 'number': return x !== x ? TAG + 'n' : x === Infinity ? TAG + '+' : x === -Infinity ? TAG + '-' : x;
        case 'undefined': return TAG + 'u';
        case 'object': {
          if (x === null || isArray(x)) return x;
          const proto = getPrototypeOf(x);
          if (proto === ObjectProto || proto === null) return x;
          let name = 'an object with a prototype';
          try { const c = x.constructor; if (c && typeof c.name === 'string' && c.name) name = c.name; } catch (e) { /* a Proxy: keep the plain words */ }
          throw new Refusal(at(k) + ' is a ' + text(name) + '; use plain objects and arrays');
        }
        default:
          throw new Refusal(at(k) + ' is a ' + typeof x);
      }
    };
    try {
      return stringify(root, replacer);
    } catch (e) {
      if (e instanceof Refusal) throw e;
      if (e instanceof TypeError && /circular/.test(e.message)) throw new Refusal(rootPath + ' refers back to itself (a cycle)');
      throw e;
    }
  }
  /** A step's { state, effects } encoded part by part, so a refusal names which part. */
  function encodeResult(out) {
    if (out === null || typeof out !== 'object' || isArray(out) || getPrototypeOf(out) !== ObjectProto) return encode(out, 'result');
    const ks = keys(out);
    let s = '{';
    for (let i = 0; i < ks.length; i++) s += (i ? ',' : '') + stringify(ks[i]) + ':' + (ks[i] === 'state' || ks[i] === 'effects' ? encode(out[ks[i]], ks[i]) : encode(out[ks[i]], 'result'));
    return s + '}';
  }

  const revive = (k, v) => {
    if (typeof v !== 'string' || v[0] !== TAG) return v;
    switch (v[1]) { case 'u': return undefined; case 'n': return NaN; case '+': return Infinity; case '-': return -Infinity; default: return apply(slice, v, [2]); }
  };
  const decode = (s) => (apply(indexOf, s, ['\\u0000']) < 0 ? parse(s) : parse(s, revive));

  function describe(e) {
    const d = lastThrow ? { line: lastThrow.line, column: lastThrow.column } : {};
    try {
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
        let isError = false;
        try { isError = e instanceof ErrorCtor; } catch (x) { /* a Proxy's trap threw */ }
        if (isError) {
          d.name = text(e.name);
          d.message = text(e.message);
          d.stack = StringCtor(e.stack);
        } else d.odd = 'threw ' + text(apply(toTag, e, [])) + ' (throw an Error, so its line is known)';
      } else d.odd = 'threw ' + (typeof e === 'string' ? 'the string ' + text(stringify(e)) : typeof e === 'symbol' ? 'a symbol' : text(e)) + ' (throw an Error, so its line is known)';
    } catch (x) {
      d.odd = 'threw an object that cannot be read (a Proxy?)';
    }
    return stringify(d);
  }

  /** report(out.state) as the host's report call would answer it: {"value"}, {"refused"} or {"threw"}. */
  function reportOn(out) {
    if (out === null || typeof out !== 'object' || typeof def.report !== 'function') return 'null';
    lastThrow = null;
    let r;
    try {
      r = apply(def.report, def, [out.state]);
    } catch (e) {
      return '{"threw":' + describe(e) + '}';
    }
    try {
      return '{"value":' + encode(r, 'report') + '}';
    } catch (e) {
      return e instanceof Refusal ? '{"refused":' + stringify(e.message) + '}' : '{"threw":' + describe(e) + '}';
    }
  }

  function safe(v, name) { try { return encode(v, name); } catch (e) { return 'null'; } }

  return {
    bind(ns) {
      lastThrow = null;
      try {
        if (!('default' in ns)) return 'J{"has":false}';
        def = ns.default;
        const kind = def === null ? 'null' : typeof def;
        if (kind !== 'object') return 'J' + stringify({ has: true, kind });
        const fns = [];
        if (typeof def.init === 'function') apply(push, fns, ['init']);
        if (typeof def.step === 'function') apply(push, fns, ['step']);
        if (typeof def.report === 'function') apply(push, fns, ['report']);
        return 'J{"has":true,"kind":"object","fns":' + stringify(fns) + ',"name":' + safe(def.name, 'name') + ',"messageTypes":' + safe(def.messageTypes, 'messageTypes') + '}';
      } catch (e) {
        return 'T' + describe(e);
      }
    },
    call(name, args, now) {
      lastThrow = null;
      let out;
      try {
        const list = decode(args);
        if (name !== 'report') apply(push, list, [{ now, random: () => hostRandom() }]);
        out = apply(def[name], def, list);
      } catch (e) {
        return 'T' + describe(e);
      }
      let result;
      try {
        result = name === 'report' ? encode(out, 'report') : encodeResult(out);
      } catch (e) {
        return e instanceof Refusal ? 'R' + e.message : 'T' + describe(e);
      }
      if (name === 'report') return 'J' + result;
      // The report on the new state rides along (the host asks for it next): one crossing per step.
      return 'J{"out":' + result + ',"report":' + reportOn(out) + '}';
    },
    describe(e) {
      return describe(e);
    },
  };
})`;
