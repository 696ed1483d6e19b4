// js-yaml, loaded on its first use instead of with the module that needs it: its
// ES-module build is 130 KB, about 12 ms of every CLI start (bench/README.md,
// "stop 23"), and most commands parse no YAML. Builtins are synchronous, so "on
// first use" means require(): Node resolves the package's CommonJS build. Every
// YAML parse and dump in runtime/, compiler/ and cli/ goes through `yaml()`; the
// server, loaded whole anyway, imports js-yaml directly (no class crosses the two).
import { createRequire } from 'node:module';

type JsYaml = typeof import('js-yaml');

let lib: JsYaml | undefined;

/** The js-yaml module. */
export function yaml(): JsYaml {
  return (lib ??= createRequire(import.meta.url)('js-yaml') as JsYaml);
}

/** js-yaml's `load` with its default schema (YAML 1.2 core, as js-yaml reads it). */
export function loadYAML(text: string, options?: Parameters<JsYaml['load']>[1]): unknown {
  return yaml().load(text, options);
}
