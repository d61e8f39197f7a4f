// Reads every IIIF manifest or collection named on the command line with
// @iiif/parser (pinned in package.json) and prints one JSON line per file:
// {"file": ..., "problems": [...]}. Problems are the strict upgrader's
// warnings (what a IIIF 3 client would have to repair), a document the
// parser cannot identify or normalise, and the specification's rules that
// a manifest and each canvas, annotation page and painting annotation
// have at least one item, a body and a target. Exit status 1 when any
// file has a problem. Run by impl/purl tests (iiif_parser_test.go).
import { readFileSync } from 'node:fs';
import { normalize } from '@iiif/parser';
import { presentation3StrictUpgrade } from '@iiif/parser/strict';

let failed = false;
for (const file of process.argv.slice(2)) {
  const problems = [];
  try {
    const json = JSON.parse(readFileSync(file, 'utf8'));
    if (json.type === 'Manifest') {
      const state = { warnings: [] };
      presentation3StrictUpgrade(structuredClone(json), state);
      problems.push(...state.warnings.map((w) => 'strict: ' + w));
    }
    const { entities, resource } = normalize(json);
    if (!resource || resource.type !== json.type || resource.id !== json.id) {
      problems.push(`normalize identified ${JSON.stringify(resource)}, want ${json.type} ${json.id}`);
    }
    const top = (entities[json.type] || {})[json.id];
    if (!top) {
      problems.push(`no ${json.type} ${json.id} after normalising`);
    } else if (json.type === 'Manifest') {
      if (!top.items || top.items.length === 0) problems.push('manifest has no items');
      for (const ref of top.items || []) {
        const canvas = entities.Canvas[ref.id];
        if (!canvas) { problems.push(`canvas ${ref.id} missing`); continue; }
        if (!(canvas.width > 0 && canvas.height > 0) && !(canvas.duration > 0)) {
          problems.push(`canvas ${ref.id} has neither a size nor a duration`);
        }
        if (!canvas.items || canvas.items.length === 0) problems.push(`canvas ${ref.id} has no annotation page`);
        for (const pref of canvas.items || []) {
          const page = entities.AnnotationPage[pref.id];
          if (!page || !page.items || page.items.length === 0) { problems.push(`annotation page ${pref.id} is empty`); continue; }
          for (const aref of page.items) {
            const anno = entities.Annotation[aref.id];
            if (!anno) { problems.push(`annotation ${aref.id} missing`); continue; }
            if (!anno.body || anno.body.length === 0) problems.push(`annotation ${aref.id} has no body`);
            if (!anno.target) problems.push(`annotation ${aref.id} has no target`);
            if (!(anno.motivation || []).includes('painting')) problems.push(`annotation ${aref.id} is not painting`);
          }
        }
      }
    }
  } catch (e) {
    problems.push('parser failed: ' + (e && e.message ? e.message : String(e)));
  }
  if (problems.length > 0) failed = true;
  process.stdout.write(JSON.stringify({ file, problems }) + '\n');
}
process.exit(failed ? 1 : 0);
