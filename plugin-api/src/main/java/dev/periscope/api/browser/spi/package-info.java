/**
 * The provider contract: how a browser gets behind the runtime. A {@link
 * dev.periscope.api.browser.spi.BrowserProvider} opens a {@link
 * dev.periscope.api.browser.spi.BrowserEnvironment} (an isolated browser context with one page) for
 * each request, which carries everything the environment must keep ({@link
 * dev.periscope.api.browser.spi.EnvironmentPolicy}: the project's {@link
 * dev.periscope.api.browser.spi.NetworkPolicy}, timeouts, viewport, screenshot limits). Its
 * truthful {@link dev.periscope.api.browser.spi.Capability} flags drive selection, and a provider
 * that does not enforce the network policy is refused for a project that is not unrestricted. An
 * environment observes its page as a ranked list of {@link
 * dev.periscope.api.browser.spi.ProviderElement}s, performs page actions through its {@link
 * dev.periscope.api.browser.BrowserAction.Handler}, reports its own death as an {@link
 * dev.periscope.api.browser.spi.EnvironmentFault} and answers liveness probes. Providers that save
 * state implement {@link dev.periscope.api.browser.spi.CheckpointingProvider}. Any plugin
 * contributes one through the {@link dev.periscope.api.browser.spi.BrowserProviderContribution}
 * extension point.
 *
 * <p>Threading: a provider's methods may be called from any thread, concurrently; an environment is
 * called by the runtime from one queue, one operation at a time, except {@code abort()}, {@code
 * probe()} and {@code onFault}, whose own documentation says when.
 */
package dev.periscope.api.browser.spi;
