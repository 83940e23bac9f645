package dev.periscope.browser.tools;

import dev.periscope.api.browser.Persistence;
import java.util.Optional;

/**
 * What the tools are configured with: the provider they ask for, whether sessions resume ({@code
 * persistence}, and whether the project chose it), the default observation mode and the caps on a
 * page of an observation, and how long a {@code browser_wait} waits when the call does not say.
 */
public record ToolSettings(
    Optional<String> provider,
    Persistence persistence,
    boolean persistenceConfigured,
    Mode observeMode,
    int observeMaxTextChars,
    int observeMaxElements,
    int waitTimeoutMs,
    Uploads uploads,
    Downloads downloads) {
  /**
   * Whether downloads an action starts are kept ({@code plugins.browser.downloads.enabled}, by
   * default off in strict network mode and on otherwise), and the most bytes one agent session's
   * downloads may take in the attachment store together.
   */
  public record Downloads(boolean enabled, long sessionBudgetBytes) {}

  /**
   * Whether the project lets the agent upload attachments ({@code plugins.browser.uploads.enabled},
   * by default off in strict network mode and on otherwise), the most bytes one upload takes, and
   * the directories {@code browser_attach_file} may read files from ({@code
   * plugins.browser.uploads.roots}: absolute, none by default, and then the tool is not offered).
   */
  public record Uploads(
      boolean enabled,
      boolean configured,
      long maxBytes,
      java.util.List<java.nio.file.Path> roots) {
    public Uploads {
      roots = java.util.List.copyOf(roots);
    }

    /** No upload roots: only attachments the host stored go up. */
    public Uploads(boolean enabled, boolean configured, long maxBytes) {
      this(enabled, configured, maxBytes, java.util.List.of());
    }
  }
}
