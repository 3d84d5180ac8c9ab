package replicaset

import (
	"testing"

	"github.com/kinformer/kinformer/internal/leakcheck"
)

// TestMain runs the tests, then fails if a goroutine of kinformer's (the
// controller's workers, its queue, the informers, the fake server's
// watches) is still running: every test stops what it started.
func TestMain(m *testing.M) { leakcheck.Main(m, "github.com/kinformer/kinformer/") }
