// Package readmecheck holds no code, only a test: every ```go block of the
// repository's README.md must compile as written, so a README change that
// breaks one fails make test.
//
// A block is completed into Go source in one mechanical way, and nothing
// else is added:
//
//   - A block of top-level declarations (func, type, var, const) becomes a
//     _test.go file of package readmecheck_test.
//   - Any other block is taken as statements and becomes the body of
//     func _() in such a file.
//   - The file imports exactly the packages the block names, looked up by
//     name in the test's table (the standard packages a README reaches for,
//     go-zookeeper as zk, and zkraft's own packages). A name missing from
//     the table shows as undefined.
//
// All blocks share one package, so two blocks must not declare the same
// top-level name. A block that is a whole file (one starting with a
// package clause) is refused. The test then runs go vet over them with an
// -overlay, so nothing is written to the tree; errors name README.md's own
// lines.
package readmecheck
