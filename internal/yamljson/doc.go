// Package yamljson converts a YAML request body to JSON the way the real
// kube-apiserver reads one sent with Content-Type: application/yaml. The
// server converts such a body with sigs.k8s.io/yaml's YAMLToJSON, which
// parses it with (a fork of) go-yaml v2, then decodes the JSON as it would
// decode a JSON body; Convert does the first step with the standard library
// only, so the fake API server can do the second unchanged.
//
// listwatch reads kubeconfig files with it too, as kubectl does: the file
// is converted to JSON, and encoding/json decodes that into the
// kubeconfig's structs. ConvertWithLines also tells the line of every JSON
// value (Result.Lines, by JSON Pointer), so that a reader that finds a bad
// value in the JSON can name the line it came from.
//
// # The subset it reads
//
// The YAML that Kubernetes manifests use, which is most of YAML 1.2's
// syntax:
//
//   - block mappings ("key: value" lines) and block sequences ("- item"
//     lines), nested by indentation (spaces; a tab in indentation is an
//     error, as in go-yaml), including "- " items that are mappings
//     ("- name: c\n  image: nginx") and a sequence at its mapping key's own
//     indentation ("containers:\n- name: c");
//   - flow mappings and sequences ({a: 1, b: [c, d]}), over several lines
//     if need be, so a JSON body is YAML too ({"a":1} reads as JSON does);
//   - plain, 'single-quoted' (a doubled quote stands for one) and
//     "double-quoted" scalars, with every YAML escape (\n, \t, \", \\,
//     \xXX, \uXXXX, \UXXXXXXXX, \0, \e, \N, \_, \L, \P, and an escaped
//     line break; not JSON's \/, which go-yaml refuses too), folded across
//     lines as YAML folds them;
//   - literal (|) and folded (>) block scalars, with chomping (|- strip,
//     |+ keep, clip by default) and indentation indicators (|2);
//   - comments, "---" before the document and "..." after it, a %YAML 1.1
//     directive;
//   - anchors (&a) and aliases (*a), and "<<" merge keys, with go-yaml's
//     limit on documents that multiply themselves through aliases;
//   - tags: !!str, !!int, !!float, !!bool, !!null, !!binary, !!timestamp
//     as go-yaml applies them, other tags ignored (the text stays a string).
//
// It refuses, each with a 400-worthy error naming the problem and, where
// go-yaml would, its line: complex keys ("? " explicit keys, and
// collections or aliases as keys), %TAG directives and the named tag
// handles they define, malformed YAML, and documents nested deeper than
// 10000 levels.
//
// # Exactly one document, as the real server reads it
//
// go-yaml's Unmarshal reads the first document of a stream and stops: the
// real server creates the first object of a multi-document body and never
// reads the rest, not even to check its syntax. Convert does the same (a
// "---" or "..." line at column 0 ends the document), so a body holding
// two manifests creates one object. An empty body, or one of comments
// only, is the JSON null.
//
// # Types: YAML 1.1, as go-yaml v2 resolves them
//
// The real server does not resolve plain scalars by YAML 1.2's core schema
// but by go-yaml v2's YAML 1.1 rules, and Convert follows it:
//
//   - booleans are true/True/TRUE/false/... and also y, Y, yes, Yes, YES,
//     n, N, no, No, NO, on, On, ON, off, Off, OFF: "enabled: yes" sends
//     true, and "value: no" a boolean the server then refuses for a string
//     field (quote it: "value: 'no'");
//   - null is ~, null, Null, NULL or nothing;
//   - integers are decimal, 0x hex, 0b binary, 0o octal and, YAML 1.1
//     style, leading-zero octal (0755 is 493; 08, not octal, is the float
//     8), with _ separators ignored; non-decimal ones past 64 bits stay
//     exact (big integers);
//   - floats are 1.5, .5, 1e3, 1.0 (written to JSON as encoding/json
//     writes a float64: 1.0 becomes 1, 1e3 becomes 1000); .inf and .nan
//     parse but JSON cannot hold them, so they are an error;
//   - timestamps (2001-12-14) stay strings, as go-yaml leaves them when it
//     decodes into an interface;
//   - anything else, and every quoted scalar, is a string.
//
// Keys become JSON member names as sigs.k8s.io/yaml makes them: a boolean
// key is "true" or "false" (so "on:" is "true"), an integer key its
// decimal text, a float key its text as a 32-bit float prints; a null key
// is an error. A key given twice keeps its last value, as go-yaml's
// non-strict decoding does; Result.Duplicates lists them, worded as its
// strict decoding reports them (the real server's fieldValidation=Strict).
//
// # Differences from go-yaml
//
// Error messages use go-yaml's wording for the mistakes people make
// (mapping values are not allowed in this context, did not find expected
// key, could not find expected ':', found character that cannot start any
// token, found unexpected end of stream...) and its way of counting lines,
// but a malformed document may be reported with other words, or another
// line, than go-yaml's. A few YAML 1.1 oddities are not reproduced: NEL,
// LS and PS are not line breaks, and an alias inside its own anchor's node
// is an unknown anchor (go-yaml says the anchor contains itself).
package yamljson
