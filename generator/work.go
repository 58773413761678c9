package generator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The plan's budget of work. The budgets of a file and of an artifact
// (maxMergeUnits, maxArtifactMergeUnits, the bounds of Extract) keep one
// tenant's artifact small; they do not keep a plan of many hostile
// tenants short, since each may spend them all. So a plan also charges
// what its artifacts' merges and extractions cost, in one unit, against
// one budget: planWorkUnits, and namespaceWorkUnits more for each
// namespace it builds artifacts for, so that the budget grows with the
// tenants the platform lets in (allowedNames) and not with the modules a
// tenant adds.
//
// The budget is shared deterministically, the smallest needs first: the
// plan builds every artifact with an equal share of it (at most what an
// artifact's own bounds allow, maxArtifactWorkUnits). An artifact whose
// work would go over its share is refused at the merge, the archive entry
// or the bytes that would, before they run, and so is known to need at
// least what it spent and what was refused. Then, while any went over (at
// most maxWorkRounds builds in all), the plan builds them again, smallest
// need first, as many as what is left of the budget holds, each with its
// need and an equal part of what their needs leave (nextShares); the
// others fail with the error of their last build, which names the share,
// what it had left, and what the refused work counts, and the plan has an
// error that names them with what was left. So an artifact fails for this budget only when the plan's
// work as a whole is over it, the largest needs first; when all need the
// same, as many as the budget holds are built, in item order; and a plan
// of small artifacts never builds one twice. Everything is counted, never
// timed: which artifacts fail depends on the files only, never on the
// machine, its load, the worker count or the order of the builds.
//
// A unit is a unit of a merge's charge (a YAML node or mergeUnitBytes of
// its files, see maxMergeUnits), extractUnitBytes bytes that an archive
// decompresses to, or an archive entry and each mergeUnitBytes of its
// name: about the same work (BenchmarkHostileMerge,
// BenchmarkHostileExtract). The budget is a judgement between what a plan
// of 1,000 tenants that are all hostile may cost (BenchmarkHostileMergePlan)
// and how many merges over large chart values files (BenchmarkHostileMerge's
// realistic file) a plan can hold; docs/performance.md has the figures.
const (
	planWorkUnits      = 250_000
	namespaceWorkUnits = 256
	extractUnitBytes   = 1_024
	// maxArtifactWorkUnits is the most an artifact's own bounds let it
	// spend: a share this large refuses nothing they allow.
	maxArtifactWorkUnits = maxArtifactMergeUnits + maxDecompressedBytes/extractUnitBytes
)

// errWorkBudget is wrapped by the error of work that an artifact's share
// of the plan's budget refuses.
var errWorkBudget = errors.New("work budget exceeded")

// workShare is an artifact's share of its plan's budget of work, and what
// the artifact spent of it. A nil *workShare (an artifact built outside a
// plan) lets all work through.
type workShare struct {
	limit int64 // units
	spent int64
	// over says that work was refused for going over limit, and need
	// what the artifact is then known to need: what it spent and the
	// refused work.
	over bool
	need int64
	// total, left and artifacts describe the plan's budget in messages:
	// its units, what was left of them for the build that gave this
	// share, and how many artifacts that build shared it among.
	total, left int64
	artifacts   int
}

// charge takes units from s for work of what, or refuses it with an error
// wrapping errWorkBudget when they are more than s has left.
func (s *workShare) charge(units int64, what string) error {
	if err := s.check(units, what); err != nil {
		return err
	}
	if s != nil {
		s.spent += units
	}
	return nil
}

// check refuses, as charge does, units that s has no room for, without
// taking them: a bound known before work whose exact charge comes later.
func (s *workShare) check(units int64, what string) error {
	if s == nil || s.spent+units <= s.limit {
		return nil
	}
	s.over, s.need = true, s.spent+units
	return fmt.Errorf("%w: %s counts %d, and the artifact's share of the plan's budget has %d left of %d (%s)",
		errWorkBudget, what, units, s.limit-s.spent, s.limit, s.describe())
}

// describe says how the plan's budget was shared.
func (s *workShare) describe() string {
	among := "1 artifact"
	if s.artifacts != 1 {
		among = fmt.Sprintf("%d artifacts", s.artifacts)
	}
	return fmt.Sprintf("the plan's merges and extractions may count %d in all, a unit for each YAML node, each %d bytes merged and each %d bytes decompressed; this build had %d of them left, shared among %s",
		s.total, mergeUnitBytes, extractUnitBytes, s.left, among)
}

// workShareOf returns the share of the artifact whose build ctx is, or nil.
func workShareOf(ctx context.Context) *workShare {
	if l, _ := ctx.Value(artifactLeaseKey{}).(*artifactLease); l != nil {
		return l.work
	}
	return nil
}

// planWork is the budget of work of a plan that builds artifacts for
// namespaces namespaces.
func planWork(namespaces int) int64 {
	return planWorkUnits + namespaceWorkUnits*int64(namespaces)
}

// firstShare is the share of each of n artifacts in a plan's first build:
// an equal part of the budget, at most maxArtifactWorkUnits.
func firstShare(budget int64, n int) int64 {
	if n == 0 {
		return 0
	}
	return min(maxArtifactWorkUnits, budget/int64(n))
}

// nextShares returns which of the artifacts over their shares, known to
// need needs, to build again, by their index in needs, and the share of
// each, with left units of the plan's budget left: the smallest needs
// first, ties in the order of needs, for as long as what is left holds
// them; then each gets its
// need and an equal part of what their needs leave, at most
// maxArtifactWorkUnits. Each build again spends its share anew, so the
// rounds end: what is left shrinks, or a need grows.
func nextShares(needs []int64, left int64) (again []int, shares []int64) {
	order := make([]int, len(needs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(needs[a], needs[b]) })
	for _, i := range order {
		if needs[i] > left || needs[i] > maxArtifactWorkUnits {
			break
		}
		left -= needs[i]
		again = append(again, i)
	}
	slices.Sort(again)
	for _, i := range again {
		shares = append(shares, min(maxArtifactWorkUnits, needs[i]+left/int64(len(again))))
	}
	return again, shares
}

// maxWorkRounds bounds the builds of a plan's artifacts: the first, and
// those again of the artifacts over their shares (see planWorkUnits).
const maxWorkRounds = 8

// workBudgetError is the plan's error for the artifacts of items at the
// indices over, known to need needs, that the plan did not build again
// (all but those of again, sorted) with left of its budget of total units
// left, or, when last, because it built them maxWorkRounds times.
func workBudgetError(total, left int64, items []*item, over []int, needs []int64, again []int, last bool) *field.Error {
	var names []string
	for j, i := range over {
		if _, built := slices.BinarySearch(again, j); !built {
			names = append(names, fmt.Sprintf("%s/%s (at least %d)", items[i].namespace, items[i].name, needs[j]))
		}
	}
	const most = 10
	list := strings.Join(names[:min(len(names), most)], ", ")
	if len(names) > most {
		list += fmt.Sprintf(" and %d more", len(names)-most)
	}
	if last {
		return field.Forbidden(specPath.Child("artifacts"), fmt.Sprintf(
			"the plan's merges and extractions may count %d units in all (see the errors of each artifact), and these artifacts went over their shares in each of %d builds: %s",
			total, maxWorkRounds, list))
	}
	return field.Forbidden(specPath.Child("artifacts"), fmt.Sprintf(
		"the plan's merges and extractions may count %d units in all (see the errors of each artifact); %d were left for the artifacts over their shares, the smallest needs first, and these do not fit: %s",
		total, max(left, 0), list))
}
