package generator

import (
	"context"
	"errors"
	"fmt"
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
// The budget is shared by max-min fairness, deterministically: the plan
// builds every artifact with an equal share of it (at most what an
// artifact's own bounds allow, maxArtifactWorkUnits). An artifact whose
// work would go over its share is refused at the merge or the archive that
// would, before that runs. When some are, what the others left is shared
// equally among them, and they are built again, until none goes over or
// their share stops growing; those still over their share then fail with
// the error of their last build, which names the share, what it had
// spent, and what the refused work counts. So an artifact fails for this
// budget only when the plan's work as a whole is over it, and the
// artifacts that need the most fail first; a plan of small artifacts never
// builds one twice. Everything is counted, never timed: which artifacts
// fail depends on the files only, never on the machine, its load, the
// worker count or the order of the builds.
//
// A unit is a unit of a merge's charge (a YAML node or mergeUnitBytes of
// its files, see maxMergeUnits), or extractUnitBytes bytes that an
// archive decompresses to: about the same work (BenchmarkHostileMerge,
// BenchmarkHostileExtract). The budget is a judgement: a plan of 1,000
// tenants that are all hostile spends it in a few seconds of CPU
// (BenchmarkHostileMergePlan), and a tenant's realistic values files,
// merged over a chart's, count a few hundred units a module
// (BenchmarkHostileMerge's realistic file).
const (
	planWorkUnits      = 500_000
	namespaceWorkUnits = 512
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
	// over says that work was refused for going over limit.
	over bool
	// total, left and artifacts describe the plan's budget in messages:
	// its units, what was left of them when this share was given, and how
	// many artifacts shared that equally.
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
	s.over = true
	return fmt.Errorf("%w: %s counts %d, and the artifact's share of the plan's budget has %d left of %d (%s)",
		errWorkBudget, what, units, s.limit-s.spent, s.limit, s.describe())
}

// describe says how the plan's budget was shared.
func (s *workShare) describe() string {
	sharedBy := "1 artifact"
	if s.artifacts != 1 {
		sharedBy = fmt.Sprintf("%d artifacts", s.artifacts)
	}
	return fmt.Sprintf("the plan's merges and extractions may count %d in all, a unit for each YAML node, each %d bytes merged and each %d bytes decompressed; %d were left, shared equally by %s",
		s.total, mergeUnitBytes, extractUnitBytes, s.left, sharedBy)
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

// nextShare is the share that the artifacts over theirs get in the next
// build, left being what the plan's budget has left and over how many
// they are; no more than maxArtifactWorkUnits.
func nextShare(left int64, over int) int64 {
	if over == 0 || left <= 0 {
		return 0
	}
	return min(maxArtifactWorkUnits, left/int64(over))
}
