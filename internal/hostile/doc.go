// Package hostile holds what the module's hostile-input test suites share: every
// tenant-controlled input (patterns, directory names, YAML files, CEL expressions, annotation
// values) is fed inputs meant to break it, and none may panic. It is meant for tests only.
package hostile
