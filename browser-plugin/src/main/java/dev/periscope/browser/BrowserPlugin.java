package dev.periscope.browser;

import dev.periscope.api.EffectScope;
import dev.periscope.api.ProjectContext;
import dev.periscope.api.host.ApprovalService;
import dev.periscope.api.host.AttachmentService;
import dev.periscope.api.host.CredentialService;
import dev.periscope.api.host.StorageDomainService;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolRegistry;
import dev.periscope.browser.handoff.Handoffs;
import dev.periscope.browser.handoff.LiveViewServer;
import dev.periscope.browser.handoff.Watches;
import dev.periscope.browser.playwright.CdpCheck;
import dev.periscope.browser.playwright.GridCheck;
import dev.periscope.browser.playwright.PlaywrightProvider;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.runtime.PageScripting;
import dev.periscope.browser.store.AgentSessionStore;
import dev.periscope.browser.store.RuntimeDatabase;
import dev.periscope.browser.store.RuntimeRecords;
import dev.periscope.browser.store.SqliteCheckpointIndex;
import dev.periscope.browser.store.SqliteRecordings;
import dev.periscope.browser.store.SqliteTransitionLog;
import dev.periscope.browser.store.WatchRequests;
import dev.periscope.browser.tools.BrowserTools;
import dev.periscope.browser.tools.OperatorTools;
import dev.periscope.browser.tools.RecordingTool;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.util.Optional;
import org.pf4j.Plugin;
import org.pf4j.PluginRuntimeException;
import org.pf4j.PluginWrapper;

/**
 * The browser plugin. Starting it opens the {@code browser_runtime} storage domain (agent sessions,
 * checkpoints, the transitions index), starts a runtime on it, registers every contributed browser
 * provider, the browser tools and the operator tools (skill {@code browser-operator}, which hosts
 * never offer to a model), each as an effect; stopping it closes those effects in reverse order, so
 * tools go first and the browsers, driver and temp files last.
 */
public final class BrowserPlugin extends Plugin {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(BrowserPlugin.class);

  private final ToolRegistry toolRegistry;
  private final StorageDomainService storage;
  private final ProjectContext project;
  private final BrowserSettings settings;
  private final Optional<AttachmentService> attachments;
  private final Optional<CredentialService> credentials;
  private final Optional<ApprovalService> approval;
  private final Provider<PlaywrightProvider> playwright;
  private final Provider<PlaywrightProvider> grid;
  private final Provider<PlaywrightProvider> cdp;
  private EffectScope effects;

  @Inject
  public BrowserPlugin(
      PluginWrapper wrapper,
      ToolRegistry toolRegistry,
      StorageDomainService storage,
      ProjectContext project,
      BrowserSettings settings,
      Optional<AttachmentService> attachments,
      Optional<CredentialService> credentials,
      Optional<ApprovalService> approval,
      Provider<PlaywrightProvider> playwright,
      @com.google.inject.name.Named(PlaywrightProvider.GRID_ID) Provider<PlaywrightProvider> grid,
      @com.google.inject.name.Named(PlaywrightProvider.CDP_ID) Provider<PlaywrightProvider> cdp) {
    super(wrapper);
    this.cdp = cdp;
    this.playwright = playwright;
    this.grid = grid;
    this.credentials = credentials;
    this.approval = approval;
    this.toolRegistry = toolRegistry;
    this.storage = storage;
    this.project = project;
    this.settings = settings;
    this.attachments = attachments;
  }

  @Override
  public synchronized void start() {
    effects = new EffectScope();
    try {
      if (settings.playwright().prelaunch()) {
        // The first browser starts before the rest (the store, the runtime, the tools), so that
        // it runs by the time the first call comes. Until the provider is registered below, this
        // effect is what stops it if the start fails.
        String chosen = settings.runtime().provider().orElse(PlaywrightProvider.ID);
        PlaywrightProvider first =
            chosen.equals(PlaywrightProvider.GRID_ID)
                ? grid.get()
                : chosen.equals(PlaywrightProvider.CDP_ID) ? cdp.get() : playwright.get();
        // Its effect first: a prelaunch that fails partway has started what the stop must end.
        effects.add(first::dispose);
        first.prelaunch();
      }
      RuntimeDatabase database = effects.add(new RuntimeDatabase(storage));
      AgentSessionStore sessions = new AgentSessionStore(database, project);
      LOG.info(
          "browser plugin: {}",
          DestinationPolicy.of(settings.runtime().environment().network()).describe());
      CredentialChannel channel =
          new CredentialChannel(
              credentials,
              settings.credentials().refs(),
              System::getenv,
              settings.credentials().requireApproval(),
              approval,
              settings.credentials().modelTypedPasswords());
      // Its server starts with the first handoff.
      Handoffs handoffs = new Handoffs(new LiveViewServer(settings.handoff()), approval);
      DefaultBrowserRuntime runtime =
          effects.add(
              DefaultBrowserRuntime.builder(settings.runtime())
                  .checkpoints(new SqliteCheckpointIndex(database))
                  .transitionLog(new SqliteTransitionLog(database))
                  .credentials(channel)
                  .handoffs(handoffs)
                  .scripting(new PageScripting(settings.scriptingEnabled(), approval))
                  .recording(settings.recording(), new SqliteRecordings(database, attachments))
                  .build());
      effects
          .add(
              new ProviderContributions(
                  getWrapper().getPluginManager(), getWrapper().getPluginId(), runtime))
          .start();
      BrowserTools tools =
          effects.add(
              new BrowserTools(
                  runtime, sessions, settings.tools(), attachments, channel, handoffs.available()));
      for (Tool tool : tools.tools()) {
        effects.add(toolRegistry.register(BrowserTools.SKILL, tool));
      }
      if (settings.scriptingEnabled()) {
        effects.add(toolRegistry.register(BrowserTools.SCRIPTING_SKILL, tools.scriptTool()));
      }
      effects.add(toolRegistry.onAgentSessionEnded(tools::agentSessionEnded));
      WatchRequests watchRequests = effects.add(new WatchRequests(storage));
      OperatorTools operator =
          new OperatorTools(
              new RuntimeRecords(database),
              runtime,
              project,
              Optional.of(BrowserModule.checkpointPayloads(project)),
              () -> settings.playwright().grid().map(GridCheck::of),
              () -> settings.playwright().cdp().map(c -> CdpCheck.of(c, 5_000)),
              Optional.of(watchRequests));
      for (Tool tool : operator.tools()) {
        effects.add(toolRegistry.register(OperatorTools.SKILL, tool));
      }
      effects.add(
          toolRegistry.register(
              OperatorTools.SKILL,
              new RecordingTool(
                      new RuntimeRecords(database),
                      new SqliteRecordings(database, attachments),
                      attachments,
                      project)
                  .tool()));
      // Last, so it closes first: every handoff still waiting ends before its lease is released.
      effects.add(handoffs);
      // Before the handoffs' server and the runtime: each watch's screencast stops on a live lane.
      effects.add(new Watches(handoffs.server(), watchRequests, runtime.watchable()));
    } catch (RuntimeException e) {
      try {
        effects.close();
      } catch (EffectScope.EffectsFailedException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  @Override
  public synchronized void stop() {
    if (effects == null) {
      return;
    }
    try {
      effects.close();
    } catch (EffectScope.EffectsFailedException e) {
      throw new PluginRuntimeException(
          e, "the browser plugin stopped with failures: {}", e.getMessage());
    } finally {
      effects = null;
    }
  }
}
