package fastdecode

import (
	"testing"

	"github.com/kinformer/kinformer/internal/leakcheck"
)

// TestMain fails the package if a test leaves a worker or a frame cutter
// running.
func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/listwatch/internal/fastdecode.") }
