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

// The plan's budget of work. A file's and an artifact's bounds keep one tenant's artifact small,
// not a plan of many hostile tenants short, so a plan also charges its artifacts' merges and
// extractions, in one unit, against planWorkUnits and namespaceWorkUnits more per namespace it
// builds artifacts for: it grows with the tenants let in (allowedNames), not with their modules.
// It is shared deterministically (package documentation, "Cost"): the first build gives each
// artifact an equal share, at most maxArtifactWorkUnits, refusing work over it before it runs, so
// the artifact is known to need at least what it spent and what was refused; up to maxWorkRounds
// builds in all then build those again as nextShares says, and the others fail with their last
// build's error (the share, what it had left, what the refused work counts) and a plan error
// naming them. A plan of small artifacts never builds one twice, and nothing is timed.
// A unit is a unit of a merge's charge (see maxMergeUnits), extractUnitBytes decompressed, or an
// archive entry and each mergeUnitBytes of its name, about the same work (BenchmarkHostileMerge,
// BenchmarkHostileExtract). The budget is a judgement between the cost of 1,000 hostile tenants
// (BenchmarkHostileMergePlan) and the large chart values merges a plan holds.
const (
	planWorkUnits      = 250_000
	namespaceWorkUnits = 256
	extractUnitBytes   = 1_024
	// maxArtifactWorkUnits is all an artifact's own bounds allow: a share this large refuses nothing.
	maxArtifactWorkUnits = maxArtifactMergeUnits + maxDecompressedBytes/extractUnitBytes
)

// errWorkBudget is wrapped by the error of work an artifact's share refuses.
var errWorkBudget = errors.New("work budget exceeded")

// workShare is an artifact's share of its plan's budget of work, and what it spent. A nil
// *workShare (outside a plan) lets all work through.
type workShare struct {
	limit int64 // units
	spent int64
	// over says work was refused over limit; need is then what was spent and refused.
	over bool
	need int64
	// total, left and artifacts, for messages: the budget, what this build had, among how many.
	total, left int64
	artifacts   int
}

// charge takes units for work of what, or refuses more than s has left (wrapping errWorkBudget).
func (s *workShare) charge(units int64, what string) error {
	if err := s.check(units, what); err != nil {
		return err
	}
	if s != nil {
		s.spent += units
	}
	return nil
}

// check refuses, as charge does, units that s has no room for, without taking them: a bound known
// before work whose exact charge comes later.
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

// nextShares returns which artifacts over their shares, known to need needs, to build again (by
// index in needs), and each one's share, with left units left: smallest needs first, ties in
// order, while left holds them; each gets its need and an equal part of the rest, at most
// maxArtifactWorkUnits. Each build spends its share anew, so the rounds end: what is left
// shrinks, or a need grows.
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

// maxWorkRounds bounds the builds of a plan's artifacts, the first included.
const maxWorkRounds = 8

// workBudgetError is the plan's error for the artifacts of items at the indices over, known to
// need needs, not built again (all but again, sorted) with left of total units left, or, when
// last, after maxWorkRounds builds.
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
