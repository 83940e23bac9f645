package dev.periscope.harness.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.multibindings.OptionalBinder;
import com.networknt.schema.Schema;
import dev.periscope.api.Cancellation;
import dev.periscope.api.HostApi;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.ProjectContext;
import dev.periscope.api.tool.SkillDeclaration;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.attachments.FileAttachmentService;
import dev.periscope.credentials.CredentialStore;
import dev.periscope.credentials.ProjectCredentialService;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import dev.periscope.harness.profile.ProjectConfig;
import dev.periscope.harness.profile.Schemas;
import dev.periscope.harness.profile.SkillSettings;
import dev.periscope.harness.profile.Yaml;
import dev.periscope.storage.SqliteStorageDomains;
import dev.periscope.verify.PluginManifest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.pf4j.PluginState;
import org.pf4j.PluginWrapper;

/**
 * A running host for one profile and one project: its services in a Guice injector, the profile's
 * plugins loaded by PF4J from their installed packages and started, and the tools they registered,
 * offered only while their skill is enabled. Closing it stops and unloads every plugin, then closes
 * the services.
 */
public final class Host implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Host.class);

  /**
   * What a host provides; tests and embedders can withhold services to model a smaller host.
   * Approval prompts go to {@code terminal}; without one, approvals follow the project's rules
   * alone. {@code settings} are laid over the project's plugin settings: by plugin id, a dotted key
   * (as a plugin's configuration reads it) and its value.
   */
  public record Options(
      Set<String> withheldServices,
      long attachmentMaxBytes,
      Optional<Terminal> terminal,
      Map<String, Map<String, Object>> settings) {
    public Options(Set<String> withheldServices, long attachmentMaxBytes) {
      this(withheldServices, attachmentMaxBytes, Optional.empty(), Map.of());
    }

    public Options(
        Set<String> withheldServices, long attachmentMaxBytes, Optional<Terminal> terminal) {
      this(withheldServices, attachmentMaxBytes, terminal, Map.of());
    }

    public static Options defaults() {
      return new Options(Set.of(), FileAttachmentService.DEFAULT_MAX_BYTES);
    }

    /**
     * These options with approval prompts on the user's terminal ({@link
     * Terminal#fromEnvironment()}).
     */
    public Options askingOnTheTerminal() {
      return new Options(
          withheldServices, attachmentMaxBytes, Terminal.fromEnvironment(), settings);
    }

    /**
     * These options with plugin {@code pluginId}'s setting {@code dottedKey} set to {@code value}.
     */
    public Options withSetting(String pluginId, String dottedKey, Object value) {
      Map<String, Map<String, Object>> all = new LinkedHashMap<>(settings);
      Map<String, Object> own = new LinkedHashMap<>(all.getOrDefault(pluginId, Map.of()));
      own.put(dottedKey, value);
      all.put(pluginId, Map.copyOf(own));
      return new Options(withheldServices, attachmentMaxBytes, terminal, Map.copyOf(all));
    }

    /**
     * These options for a host that only runs operator tools (the harness's sessions, transitions,
     * checkpoints, report, watch ...): the browser plugin starts no browser ahead of agent calls
     * that never come ({@code pool.prelaunch} off).
     */
    public Options forOperators() {
      return withSetting("browser", "pool.prelaunch", false);
    }
  }

  private final HarnessHome.Profile profile;
  private final ProjectConfig project;
  private final SqliteStorageDomains storage;
  private final HostToolRegistry registry = new HostToolRegistry();
  private final Map<String, Schema> argumentSchemas = new ConcurrentHashMap<>();
  private final FileAttachmentService attachments;

  /**
   * The skills the installed plugins declare, each with its audience; no other skill is offered.
   */
  private final Map<String, SkillDeclaration.Audience> skills;

  /** Settings laid over the project's, by plugin ({@link Options#settings()}). */
  private final Map<String, Map<String, Object>> settings;

  private HostPluginManager plugins;

  private Host(
      HarnessHome.Profile profile,
      ProjectConfig project,
      SqliteStorageDomains storage,
      FileAttachmentService attachments,
      Map<String, SkillDeclaration.Audience> skills,
      Map<String, Map<String, Object>> settings) {
    this.skills = Map.copyOf(skills);
    this.settings = settings;
    this.profile = profile;
    this.project = project;
    this.storage = storage;
    this.attachments = attachments;
  }

  public static Host start(HarnessHome home, String profileName, Path projectDir, Options options) {
    HarnessHome.Profile profile = home.profile(profileName);
    Map<String, PluginManifest> installed = PluginInstaller.installed(profile);
    Map<String, JsonNode> schemas = new LinkedHashMap<>();
    installed.forEach((id, m) -> schemas.put(id, Yaml.JSON.valueToTree(m.configSchema())));
    ProjectConfig project = ProjectConfig.load(projectDir, schemas);
    SqliteStorageDomains storage = new SqliteStorageDomains(profile.data());
    Set<String> provided = new HashSet<>(HostApi.SERVICES.keySet());
    provided.removeAll(options.withheldServices());
    FileAttachmentService attachments =
        provided.contains("attachments")
            ? new FileAttachmentService(
                profile.attachments(),
                storage.open("attachments", FileAttachmentService.MIGRATIONS),
                options.attachmentMaxBytes())
            : null;
    Map<String, SkillDeclaration.Audience> skills = new LinkedHashMap<>();
    installed.values().forEach(m -> m.skills().forEach(k -> skills.put(k.name(), k.audience())));
    Host host = new Host(profile, project, storage, attachments, skills, options.settings());
    try {
      host.startPlugins(installed, provided, options.terminal());
    } catch (RuntimeException e) {
      try {
        host.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    return host;
  }

  private void startPlugins(
      Map<String, PluginManifest> installed, Set<String> provided, Optional<Terminal> terminal) {
    Map<String, Object> services = new LinkedHashMap<>();
    if (provided.contains("storageDomain")) {
      services.put("storageDomain", storage);
    }
    if (attachments != null) {
      services.put("attachments", attachments);
    }
    if (provided.contains("credentials")) {
      services.put(
          "credentials",
          new ProjectCredentialService(
              project.credentials(), Optional.of(new CredentialStore(profile.dir()))));
    }
    if (provided.contains("approval")) {
      services.put("approval", new RuleApprovalService(project.approvalRules(), terminal));
    }
    Injector injector =
        Guice.createInjector(
            new AbstractModule() {
              @Override
              protected void configure() {
                HostApi.SERVICES.forEach((name, type) -> bindService(type, services.get(name)));
              }

              private <T> void bindService(Class<T> type, Object service) {
                OptionalBinder<T> binder = OptionalBinder.newOptionalBinder(binder(), type);
                if (service != null) {
                  binder.setBinding().toInstance(type.cast(service));
                }
              }
            });
    plugins =
        new HostPluginManager(
            profile.plugins(),
            injector,
            registry,
            id -> configuration(id),
            id -> new ProjectContext(profile.name(), project.projectDir(), profile.pluginData(id)));
    plugins.setSystemVersion(HostApi.VERSION);
    plugins.loadPlugins();
    for (PluginWrapper wrapper : List.copyOf(plugins.getResolvedPlugins())) {
      PluginManifest manifest = plugins.manifest(wrapper);
      for (String service : manifest.requiredServices()) {
        if (!services.containsKey(service)) {
          throw new HarnessException(
              "refused to start plugin "
                  + manifest.id()
                  + ": it requires host service '"
                  + service
                  + "', which this host does not provide");
        }
      }
      PluginState state = plugins.startPlugin(wrapper.getPluginId());
      if (state != PluginState.STARTED) {
        Throwable cause = wrapper.getFailedException();
        throw new HarnessException(
            "plugin "
                + manifest.id()
                + " failed to start: "
                + (cause == null ? state : rootMessage(cause)),
            cause);
      }
    }
    for (String id : installed.keySet()) {
      if (plugins.getPlugin(id) == null
          || plugins.getPlugin(id).getPluginState() != PluginState.STARTED) {
        throw new HarnessException(
            "plugin "
                + id
                + " is installed but could not be loaded (is its requires range "
                + installed.get(id).requires()
                + " met by host API "
                + HostApi.VERSION
                + "?)");
      }
    }
  }

  private PluginConfiguration configuration(String pluginId) {
    JsonNode section = project.pluginSections().get(pluginId);
    @SuppressWarnings("unchecked")
    Map<String, Object> values =
        section == null ? Map.of() : Yaml.JSON.convertValue(section, Map.class);
    for (var set : settings.getOrDefault(pluginId, Map.of()).entrySet()) {
      values = withValue(values, set.getKey().split("\\."), 0, set.getValue());
    }
    return new PluginConfiguration(values);
  }

  /** {@code values} with the value at {@code path} (from {@code at}) set, maps made as needed. */
  private static Map<String, Object> withValue(
      Map<String, Object> values, String[] path, int at, Object value) {
    Map<String, Object> out = new LinkedHashMap<>(values);
    if (at == path.length - 1) {
      out.put(path[at], value);
      return out;
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> inner =
        out.get(path[at]) instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    out.put(path[at], withValue(inner, path, at + 1, value));
    return out;
  }

  /** The tools offered to agents now: those of enabled agent skills. */
  public List<ToolDescriptor> tools() {
    List<ToolDescriptor> out = new ArrayList<>();
    for (HostToolRegistry.Registered r : registry.all()) {
      if (isFor(r, SkillDeclaration.Audience.AGENT) && skillEnabled(r.skill())) {
        out.add(r.tool().descriptor());
      }
    }
    return out;
  }

  /**
   * Whether a tool belongs to a skill a plugin declares for this audience. A tool registered under
   * a skill no installed plugin declares is offered to no one: a slip in a plugin cannot hand an
   * operator's tool to a model.
   */
  private boolean isFor(HostToolRegistry.Registered r, SkillDeclaration.Audience audience) {
    return skills.get(r.skill()) == audience;
  }

  /** The tools of the plugins' operator skills, which only {@link #operate} runs. */
  public List<ToolDescriptor> operatorTools() {
    return registry.all().stream()
        .filter(r -> isFor(r, SkillDeclaration.Audience.OPERATOR))
        .map(r -> r.tool().descriptor())
        .toList();
  }

  /**
   * The guidance of every enabled agent skill that offers a tool, for the model: a skill whose
   * plugin registered none of its tools for this project (scripting the project left off) says
   * nothing.
   */
  public String guidance() {
    java.util.Set<String> offering =
        registry.all().stream()
            .map(HostToolRegistry.Registered::skill)
            .collect(java.util.stream.Collectors.toSet());
    StringBuilder b = new StringBuilder();
    for (PluginManifest m : PluginInstaller.installed(profile).values()) {
      m.skills().stream()
          .filter(s -> s.audience() == SkillDeclaration.Audience.AGENT && skillEnabled(s.name()))
          .filter(s -> offering.contains(s.name()))
          .forEach(s -> b.append(s.guidance()).append('\n'));
    }
    return b.toString().strip();
  }

  public boolean skillEnabled(String skill) {
    return SkillSettings.enabled(profile, project.projectDir(), skill);
  }

  /**
   * Calls a tool for an agent session. Unknown tools, operator tools, disabled skills and bad
   * arguments are error results.
   */
  public ToolResult call(
      String agentSessionId,
      String toolName,
      Map<String, Object> arguments,
      Cancellation cancellation) {
    Optional<HostToolRegistry.Registered> found =
        registry.find(toolName).filter(r -> isFor(r, SkillDeclaration.Audience.AGENT));
    if (found.isEmpty()) {
      return ToolResult.error(
          "unknown tool '"
              + toolName
              + "'; this host offers: "
              + String.join(", ", tools().stream().map(ToolDescriptor::name).toList()));
    }
    HostToolRegistry.Registered registered = found.get();
    if (!skillEnabled(registered.skill())) {
      return ToolResult.error(
          "tool '"
              + toolName
              + "' belongs to skill '"
              + registered.skill()
              + "', which is disabled for this project; the user can enable it with: harness skill enable "
              + registered.skill()
              + " --profile "
              + profile.name()
              + " [--project DIR]");
    }
    return invoke(registered.tool(), agentSessionId, arguments, cancellation);
  }

  /**
   * Runs a tool of a plugin's operator skill for the person running the host, under the agent
   * session id {@code operator}. An unknown name, a tool that is not an operator's and bad
   * arguments are error results.
   */
  public ToolResult operate(String toolName, Map<String, Object> arguments) {
    Optional<HostToolRegistry.Registered> found =
        registry.find(toolName).filter(r -> isFor(r, SkillDeclaration.Audience.OPERATOR));
    if (found.isEmpty()) {
      return ToolResult.error(
          "no operator tool '"
              + toolName
              + "'; the plugins offer: "
              + String.join(", ", operatorTools().stream().map(ToolDescriptor::name).toList()));
    }
    return invoke(found.get().tool(), "operator", arguments, Cancellation.none());
  }

  private ToolResult invoke(
      Tool tool, String agentSessionId, Map<String, Object> arguments, Cancellation cancellation) {
    String toolName = tool.descriptor().name();
    Schema schema =
        argumentSchemas.computeIfAbsent(
            toolName, n -> Schemas.compile(tool.descriptor().inputSchema()));
    List<String> violations = Schemas.violations(schema, Yaml.JSON.valueToTree(arguments), "");
    if (!violations.isEmpty()) {
      return tool.rejectArguments(violations);
    }
    try {
      // Argument names only: a browser_fill value is the user's data and stays out of the log.
      LOG.debug(
          "tool {} called by agent session {} with arguments {}",
          toolName,
          agentSessionId,
          arguments.keySet());
      ToolResult result = tool.call(new ToolCall(arguments, agentSessionId, cancellation));
      LOG.debug(
          "tool {} for agent session {} returned{}: {}",
          toolName,
          agentSessionId,
          result.isError() ? " an error" : "",
          result.text().lines().reduce((first, last) -> last).orElse(""));
      return result;
    } catch (RuntimeException e) {
      // A tool's own bug must not take the host down. The model sees that the call failed; the
      // operator's log
      // gets the details, which may hold host paths.
      LOG.warn("tool {} failed", toolName, e);
      return ToolResult.error(
          "tool '" + toolName + "' failed unexpectedly; the host log has the details");
    }
  }

  /**
   * Stops one plugin, as a host does when a user switches it off; what it contributed to other
   * plugins is withdrawn with it.
   */
  public void stopPlugin(String pluginId) {
    PluginState state = plugins.stopPlugin(pluginId);
    if (state != PluginState.STOPPED) {
      throw new HarnessException("plugin " + pluginId + " did not stop: " + state);
    }
  }

  /** Ends an agent session: plugins release what they hold for it. */
  public void endSession(String agentSessionId) {
    registry.agentSessionEnded(agentSessionId);
  }

  /** The reference attachment store, when this host provides one. */
  public Optional<FileAttachmentService> attachments() {
    return Optional.ofNullable(attachments);
  }

  public String profileName() {
    return profile.name();
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    if (plugins != null) {
      // Stop each plugin by id over a copy: PF4J's stopPlugins() can throw
      // ConcurrentModificationException.
      for (PluginWrapper w : List.copyOf(plugins.getStartedPlugins())) {
        try {
          plugins.stopPlugin(w.getPluginId());
          if (w.getFailedException() != null && failure == null) {
            failure =
                new HarnessException(
                    "plugin "
                        + w.getPluginId()
                        + " stopped with failures: "
                        + rootMessage(w.getFailedException()),
                    w.getFailedException());
          }
        } catch (RuntimeException e) {
          failure = add(failure, e);
        }
      }
      for (PluginWrapper w : List.copyOf(plugins.getPlugins())) {
        try {
          plugins.unloadPlugin(w.getPluginId());
          plugins.forget(w.getPluginId());
        } catch (RuntimeException e) {
          failure = add(failure, e);
        }
      }
    }
    try {
      storage.close();
    } catch (RuntimeException e) {
      failure = add(failure, e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException add(RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  public static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c == t ? String.valueOf(t.getMessage()) : t.getMessage() + " (" + c.getMessage() + ")";
  }
}
