package dev.periscope.browser;

import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.browser.spi.BrowserProviderContribution;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.pf4j.PluginManager;
import org.pf4j.PluginState;
import org.pf4j.PluginStateEvent;
import org.pf4j.PluginStateListener;
import org.pf4j.PluginWrapper;

/**
 * Registers every {@link BrowserProviderContribution} with the runtime: this plugin's own while it
 * starts (PF4J lists extensions only of started plugins, so they are looked up by class name), and
 * other plugins' as they start. A plugin that stops takes its providers' registrations with it.
 */
final class ProviderContributions implements PluginStateListener, AutoCloseable {
  private final PluginManager plugins;
  private final String selfId;
  private final BrowserRuntime runtime;
  private final Map<String, List<AutoCloseable>> registrations = new HashMap<>();

  ProviderContributions(PluginManager plugins, String selfId, BrowserRuntime runtime) {
    this.plugins = plugins;
    this.selfId = selfId;
    this.runtime = runtime;
  }

  void start() {
    for (PluginWrapper w : List.copyOf(plugins.getPlugins())) {
      if (w.getPluginId().equals(selfId) || w.getPluginState() == PluginState.STARTED) {
        register(w);
      }
    }
    plugins.addPluginStateListener(this);
  }

  @Override
  public void pluginStateChanged(PluginStateEvent event) {
    String id = event.getPlugin().getPluginId();
    if (id.equals(selfId)) {
      return;
    }
    if (event.getPluginState() == PluginState.STARTED) {
      register(event.getPlugin());
    } else if (event.getOldState() == PluginState.STARTED) {
      closeAll(take(id));
    }
  }

  private void register(PluginWrapper w) {
    List<AutoCloseable> mine = new ArrayList<>();
    for (String className : plugins.getExtensionClassNames(w.getPluginId())) {
      Class<?> type;
      try {
        type = w.getPluginClassLoader().loadClass(className);
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(
            "extension " + className + " of plugin " + w.getPluginId() + " does not load", e);
      }
      if (BrowserProviderContribution.class.isAssignableFrom(type)) {
        try {
          BrowserProviderContribution c =
              (BrowserProviderContribution) plugins.getExtensionFactory().create(type);
          mine.add(runtime.registerProvider(c.provider()));
        } catch (RuntimeException e) {
          try {
            closeAll(mine);
          } catch (RuntimeException closing) {
            e.addSuppressed(closing);
          }
          throw e;
        }
      }
    }
    synchronized (this) {
      registrations.computeIfAbsent(w.getPluginId(), k -> new ArrayList<>()).addAll(mine);
    }
  }

  private synchronized List<AutoCloseable> take(String pluginId) {
    List<AutoCloseable> r = registrations.remove(pluginId);
    return r == null ? List.of() : r;
  }

  @Override
  public void close() throws Exception {
    plugins.removePluginStateListener(this);
    List<AutoCloseable> all = new ArrayList<>();
    synchronized (this) {
      registrations.values().forEach(all::addAll);
      registrations.clear();
    }
    closeAll(all);
  }

  /** Closes the registrations, the latest first. */
  private static void closeAll(List<AutoCloseable> registrations) {
    List<AutoCloseable> latestFirst = new ArrayList<>(registrations);
    java.util.Collections.reverse(latestFirst);
    new Cleanup().closeAll(latestFirst).done();
  }
}
