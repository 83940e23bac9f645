package dev.periscope.browser.runtime;

/**
 * How a runtime is put together: its settings, where it indexes checkpoints and logs transitions,
 * its credentials.
 */
public final class RuntimeBuilder {
  private final RuntimeSettings settings;
  private CheckpointIndex checkpoints = CheckpointIndex.inMemory();
  private TransitionLog transitionLog = TransitionLog.none();
  private CredentialChannel credentials = CredentialChannel.none();
  private dev.periscope.browser.handoff.Handoffs handoffs;
  private PageScripting scripting = PageScripting.off();
  private RecordingSettings recording = RecordingSettings.off();
  private RecordingStore recordings = RecordingStore.none();

  RuntimeBuilder(RuntimeSettings settings) {
    this.settings = settings;
  }

  public RuntimeBuilder checkpoints(CheckpointIndex index) {
    this.checkpoints = index;
    return this;
  }

  public RuntimeBuilder transitionLog(TransitionLog log) {
    this.transitionLog = log;
    return this;
  }

  public RuntimeBuilder credentials(CredentialChannel channel) {
    this.credentials = channel;
    return this;
  }

  /** Where pages are handed to a person ({@code browser_handoff}); without it, they are not. */
  public RuntimeBuilder handoffs(dev.periscope.browser.handoff.Handoffs desk) {
    this.handoffs = desk;
    return this;
  }

  /** Whether scripts run in pages, and who approves them; by default they do not. */
  public RuntimeBuilder scripting(PageScripting pageScripting) {
    this.scripting = pageScripting;
    return this;
  }

  /** Whether each session is recorded after each action, and where; by default it is not. */
  public RuntimeBuilder recording(RecordingSettings settings, RecordingStore store) {
    this.recording = settings;
    this.recordings = store;
    return this;
  }

  public DefaultBrowserRuntime build() {
    return new DefaultBrowserRuntime(
        settings,
        checkpoints,
        transitionLog,
        credentials,
        java.util.Optional.ofNullable(handoffs),
        scripting,
        recording,
        recordings);
  }
}
