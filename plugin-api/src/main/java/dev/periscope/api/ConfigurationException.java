package dev.periscope.api;

/**
 * A plugin's configuration is invalid: a value out of its bounds, a malformed entry, a setting that
 * contradicts another. It names the setting by its path ({@code plugins.browser.network.mode}) and
 * says what is allowed. It is for the person who configures the project, not for a model: a plugin
 * throws it while it starts, and a host refuses to start that plugin with its message.
 */
public class ConfigurationException extends RuntimeException {
  private final String path;

  public ConfigurationException(String path, String message) {
    super(message);
    this.path = path;
  }

  /**
   * The setting's path in the project's configuration, such as {@code
   * plugins.browser.actionTimeoutMs}.
   */
  public String path() {
    return path;
  }
}
