/**
 * The services a host provides: approval of sensitive actions, credentials (a {@link
 * dev.periscope.api.host.Secret} that never prints itself), SQLite storage domains with their
 * migrations, and an attachment store for images and files a tool produces. A plugin names the ones
 * it requires or can use in its plugin.yaml and receives them injected; an optional service may be
 * absent. Each service is safe to call from any thread.
 */
package dev.periscope.api.host;
