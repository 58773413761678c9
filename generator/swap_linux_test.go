package generator

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPlanSwapRace plans the sample, hundreds of times, while a goroutine
// swaps tenant-payments' module directory "api" with a link to
// tenant-search's module "indexer", back and forth (renameat2 with
// RENAME_EXCHANGE, atomic). A plan may find the module or not, and may
// fail it; but when it builds tenant-payments' artifact "api", the
// artifact must be exactly the one built from that tenant's own files
// (the same digest): through dirfs, which refuses the link wherever it
// meets it, it always is. Through root.FS(), which follows a link that
// stays inside the root, the other tenant's files can reach the
// artifact, once the plan's checks of the directory are done: the test
// logs how often, and does not fail for it.
func TestPlanSwapRace(t *testing.T) {
	t.Parallel()
	for _, src := range hostileSources {
		t.Run(src.name, func(t *testing.T) {
			t.Parallel()
			repo := sampleRepo(t)
			modules := filepath.Join(repo, "tenants/tenant-payments/modules")
			var want *Artifact
			for _, a := range hostilePlan(t, src, repo, nil).Artifacts {
				if a.Namespace == "tenant-payments" && a.Name == "api" {
					want = &a
				}
			}
			if want == nil {
				t.Fatal("no artifact tenant-payments/api before the swaps")
			}
			symlink(t, "../../tenant-search/modules/indexer", filepath.Join(modules, ".swap"))

			var (
				done  atomic.Bool
				swaps int
				wg    sync.WaitGroup
			)
			wg.Go(func() {
				for !done.Load() {
					err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(modules, "api"), unix.AT_FDCWD, filepath.Join(modules, ".swap"), unix.RENAME_EXCHANGE)
					if err != nil {
						t.Errorf("renameat2 RENAME_EXCHANGE: %v", err)
						return
					}
					swaps++
					time.Sleep(20 * time.Microsecond)
				}
			})
			var plans, built, leaks int
			for deadline := time.Now().Add(5 * time.Second); plans < 300 && time.Now().Before(deadline); plans++ {
				for _, a := range hostilePlan(t, src, repo, nil).Artifacts {
					if a.Namespace != "tenant-payments" || a.Name != "api" {
						continue
					}
					built++
					if a.Digest != want.Digest {
						leaks++
						if src.name == "dirfs" {
							t.Errorf("plan %d: artifact tenant-payments/api has digest %s, inputs %s; want %s, inputs %s", plans, a.Digest, a.Inputs, want.Digest, want.Inputs)
						}
					}
				}
			}
			done.Store(true)
			wg.Wait()
			t.Logf("%d plans during %d swaps: %d built tenant-payments/api, %d of them from other files", plans, swaps, built, leaks)
			if swaps == 0 {
				t.Error("no swaps")
			}
		})
	}
}
