/**
 * The contract between a host and a Periscope plugin. A host runs plugins with PF4J and hands each
 * the services it declared in its plugin.yaml ({@link dev.periscope.api.HostApi#SERVICES}) through
 * Guice, with its validated section of the project's configuration ({@link
 * dev.periscope.api.PluginConfiguration}) and the project itself ({@link
 * dev.periscope.api.ProjectContext}). Everything a plugin registers is an effect of its {@link
 * dev.periscope.api.EffectScope}, closed in reverse order when it stops; every call takes the
 * caller's {@link dev.periscope.api.Cancellation}. A bad setting is a {@link
 * dev.periscope.api.ConfigurationException}, for the person who configures the project. This
 * package and its subpackages hold interfaces and records only.
 */
package dev.periscope.api;
