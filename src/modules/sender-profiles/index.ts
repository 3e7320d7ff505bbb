export { SenderProfile } from './dto';
export { createSenderProfile, fromEmail, readSender, senderCandidates, type SenderProfileRow } from './service';
export { SenderProfileErrors } from './errors';
