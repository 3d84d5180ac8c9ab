package trace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ForExample is off unless the run is verbose, so a plain go test stays
// quiet; verbose, it writes one indented line per event of the stages
// asked for, and nothing once the Example has ended.
func TestForExample_WritesIndentedLinesUntilEnded(t *testing.T) {
	off, end := ForExample(false)
	require.False(t, off.On())
	end()

	var out strings.Builder
	tr, end := forWriter(&out, "    ", []string{StageInformer})
	tr.Stage(StageInformer).Event("cache add", Key("default/a"))
	tr.Stage(StageServer).Event("commit") // filtered out
	end()
	tr.Stage(StageInformer).Event("cache delete", Key("default/a"))
	require.Equal(t, "    informer: cache add key=default/a\n", out.String())
}
