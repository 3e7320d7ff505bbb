export { AutomationRun } from './engine';
export { automationOfToken, unsubscribeAutomationRecipient } from './unsubscribe';
