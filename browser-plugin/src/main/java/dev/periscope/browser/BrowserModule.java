package dev.periscope.browser;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.ProjectContext;
import dev.periscope.browser.playwright.PlaywrightProvider;

/**
 * The plugin's Guice module, installed by the host into a child of its injector. The host binds its
 * services, the project context, the tool registry and this plugin's validated configuration; this
 * module adds the plugin's own singletons.
 */
public final class BrowserModule extends AbstractModule {
  @Provides
  @Singleton
  BrowserSettings settings(PluginConfiguration configuration) {
    return BrowserSettings.from(configuration);
  }

  @Provides
  @Singleton
  PlaywrightProvider playwrightProvider(BrowserSettings settings, ProjectContext project) {
    // The plugin's start starts its first browser (pool.prelaunch), before anything else.
    return new PlaywrightProvider(
        settings.playwright(), java.util.Optional.of(checkpointPayloads(project)));
  }

  /** The grid provider: the same environments, each a browser on the project's Selenium Grid. */
  @Provides
  @Singleton
  @com.google.inject.name.Named(PlaywrightProvider.GRID_ID)
  PlaywrightProvider gridProvider(BrowserSettings settings, ProjectContext project) {
    return PlaywrightProvider.grid(
        settings.playwright(),
        java.util.Optional.of(checkpointPayloads(project)),
        dev.periscope.browser.policy.Resolver.system(),
        dev.periscope.browser.policy.Upstream.direct());
  }

  /** The cdp provider: tabs of its own in a Chromium the user runs (plugins.browser.cdp). */
  @Provides
  @Singleton
  @com.google.inject.name.Named(PlaywrightProvider.CDP_ID)
  PlaywrightProvider cdpProvider(BrowserSettings settings) {
    return PlaywrightProvider.cdp(
        settings.playwright(),
        dev.periscope.browser.policy.Resolver.system(),
        dev.periscope.browser.policy.Upstream.direct());
  }

  /** Where the built-in provider keeps checkpoint payloads: the plugin's data directory. */
  static java.nio.file.Path checkpointPayloads(ProjectContext project) {
    return project.dataDir().resolve("checkpoints");
  }
}
