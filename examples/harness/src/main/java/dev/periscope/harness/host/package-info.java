/**
 * A running host for one profile and project: the host services bound in a Guice injector by
 * iterating the host API's list, the profile's plugins loaded by PF4J from their packages, the
 * tools they register offered by skill (agent skills to the model while enabled; operator skills
 * only to {@link dev.periscope.harness.host.Host#operate}), approval by project rules and the
 * terminal, and scripts of tool calls run against it. Start with {@link
 * dev.periscope.harness.host.Host}.
 */
package dev.periscope.harness.host;
