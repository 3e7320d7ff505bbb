export { busyBlockCreate, MeetingType, meetingTypeCreate } from './dto';
export { addBusyBlock, createMeetingType, rotateEmbedKey } from './meeting-types';
export { markNoShow } from './sweep';
