package informer

import (
	"testing"

	"github.com/kinformer/kinformer/internal/leakcheck"
)

// TestMain runs the tests, then fails if a goroutine started by this
// package's code or tests is still running.
func TestMain(m *testing.M) { leakcheck.Main(m, "kinformer/informer.") }
