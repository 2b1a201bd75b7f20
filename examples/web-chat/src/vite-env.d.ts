/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_TEMPORAL_UI_URL?: string;
  readonly VITE_TEMPORAL_NAMESPACE?: string;
  readonly VITE_CHAT_WORKFLOW_PREFIX?: string;
}
