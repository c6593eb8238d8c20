// A JavaScript module's top-level declarations compared by their code, comments and layout
// aside: the grader's templates held to its examples, the two ring examples' hop layer held to one
// text (test/unit/grader-templates.test.ts, test/unit/grader-ring-hops.test.ts).
import ts from 'typescript';

export interface Declaration {
  text: string;
  hole: boolean;
}

/** A module's top-level declarations by name: their code without comments or layout. */
export function declarations(source: string): Map<string, Declaration> {
  const file = ts.createSourceFile('m.js', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const out = new Map<string, Declaration>();
  const add = (name: string, node: ts.Node) => {
    const raw = node.getFullText(file);
    out.set(name, { text: codeOf(node, file), hole: /\bTODO\b/.test(raw) });
  };
  for (const st of file.statements) {
    if (ts.isFunctionDeclaration(st) && st.name) add(st.name.text, st);
    else if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name)) add(d.name.text, st);
  }
  return out;
}

/** The node's tokens joined by single spaces: comments and layout do not count. */
function codeOf(node: ts.Node, file: ts.SourceFile): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard);
  scanner.setText(file.text, node.getStart(file), node.getEnd() - node.getStart(file));
  const tokens: string[] = [];
  for (let k = scanner.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = scanner.scan())
    tokens.push(scanner.getTokenText());
  // Prettier may add or drop a trailing comma; that is layout too.
  return tokens.join(' ').replace(/ , (?=[)\]}])/g, ' ');
}
