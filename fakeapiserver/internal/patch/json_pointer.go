package patch

// pointer is a JSON pointer split into its reference tokens, already
// unescaped: "/spec/containers/0/image" has four. JSON patch paths are read
// the way json-patch v4 reads them (see parseV4Path).
type pointer []string
