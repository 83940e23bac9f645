/**
 * The browser runtime as its callers see it. A caller (an owner) acquires a {@link
 * dev.periscope.api.browser.BrowserLease} on a durable browser session from the {@link
 * dev.periscope.api.browser.BrowserRuntime}; through it, it observes the page (an {@link
 * dev.periscope.api.browser.Observation} whose elements have refs), performs {@link
 * dev.periscope.api.browser.BrowserAction}s on those refs (each a {@link
 * dev.periscope.api.browser.Transition} from one observation to the next, recorded whether it
 * succeeded or not), takes screenshots and extracts records. A resuming session survives its
 * browser and the host through checkpoints. Every failure is a {@link
 * dev.periscope.api.browser.BrowserException} with a stable {@link
 * dev.periscope.api.browser.ErrorCode}, a failure line for the model and the same failure as data.
 * Providers that run the browsers implement {@link dev.periscope.api.browser.spi}.
 *
 * <p>Leases and the runtime are safe to use from any thread; operations on one environment run one
 * at a time, in arrival order. Actions, observations, transitions and the other records are
 * immutable.
 */
package dev.periscope.api.browser;
