package dev.periscope.harness.host;

import com.google.inject.AbstractModule;
import com.google.inject.Injector;
import com.google.inject.Module;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.ProjectContext;
import dev.periscope.api.tool.ToolRegistry;
import dev.periscope.verify.ManifestDescriptor;
import dev.periscope.verify.PluginManifest;
import dev.periscope.verify.YamlPluginDescriptorFinder;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.pf4j.CompoundPluginDescriptorFinder;
import org.pf4j.DefaultPluginManager;
import org.pf4j.ExtensionFactory;
import org.pf4j.ManifestPluginDescriptorFinder;
import org.pf4j.Plugin;
import org.pf4j.PluginDescriptorFinder;
import org.pf4j.PluginFactory;
import org.pf4j.PluginRuntimeException;
import org.pf4j.PluginWrapper;
import org.pf4j.PropertiesPluginDescriptorFinder;

/**
 * PF4J with the host's pieces: plugin.yaml read first, and plugins and their extensions created
 * through a child of the host's injector that installs the plugin's own Guice module.
 */
final class HostPluginManager extends DefaultPluginManager {
  private final Injector host;
  private final ToolRegistry tools;
  private final Function<String, PluginConfiguration> configurations;
  private final Function<String, ProjectContext> projects;
  private final Map<String, Injector> injectors = new ConcurrentHashMap<>();

  /**
   * {@code projects} gives each plugin, by id, its project context (with its own data directory).
   */
  HostPluginManager(
      Path pluginsRoot,
      Injector host,
      ToolRegistry tools,
      Function<String, PluginConfiguration> configurations,
      Function<String, ProjectContext> projects) {
    super(pluginsRoot);
    this.host = host;
    this.tools = tools;
    this.configurations = configurations;
    this.projects = projects;
  }

  @Override
  protected PluginDescriptorFinder createPluginDescriptorFinder() {
    return new CompoundPluginDescriptorFinder()
        .add(new YamlPluginDescriptorFinder())
        .add(new PropertiesPluginDescriptorFinder())
        .add(new ManifestPluginDescriptorFinder());
  }

  @Override
  protected PluginFactory createPluginFactory() {
    return wrapper -> {
      try {
        Class<?> pluginClass =
            wrapper.getPluginClassLoader().loadClass(wrapper.getDescriptor().getPluginClass());
        return (Plugin) injector(wrapper).getInstance(pluginClass);
      } catch (ClassNotFoundException e) {
        throw new PluginRuntimeException(e, "plugin class of {} not found", wrapper.getPluginId());
      }
    };
  }

  @Override
  protected ExtensionFactory createExtensionFactory() {
    return new ExtensionFactory() {
      @Override
      public <T> T create(Class<T> extensionClass) {
        PluginWrapper owner = whichPlugin(extensionClass);
        return owner == null
            ? host.getInstance(extensionClass)
            : injector(owner).getInstance(extensionClass);
      }
    };
  }

  PluginManifest manifest(PluginWrapper wrapper) {
    if (!(wrapper.getDescriptor() instanceof ManifestDescriptor d)) {
      throw new PluginRuntimeException("plugin {} has no plugin.yaml", wrapper.getPluginId());
    }
    return d.manifest();
  }

  private Injector injector(PluginWrapper wrapper) {
    return injectors.computeIfAbsent(
        wrapper.getPluginId(),
        id -> {
          PluginManifest manifest = manifest(wrapper);
          Module pluginModule;
          try {
            pluginModule =
                (Module)
                    wrapper
                        .getPluginClassLoader()
                        .loadClass(manifest.module())
                        .getDeclaredConstructor()
                        .newInstance();
          } catch (ReflectiveOperationException | ClassCastException e) {
            throw new PluginRuntimeException(
                e, "cannot create Guice module {} of plugin {}", manifest.module(), id);
          }
          return host.createChildInjector(
              pluginModule,
              new AbstractModule() {
                @Override
                protected void configure() {
                  bind(PluginWrapper.class).toInstance(wrapper);
                  bind(ToolRegistry.class).toInstance(tools);
                  bind(PluginConfiguration.class).toInstance(configurations.apply(id));
                  bind(ProjectContext.class).toInstance(projects.apply(id));
                }
              });
        });
  }

  void forget(String pluginId) {
    injectors.remove(pluginId);
  }
}
