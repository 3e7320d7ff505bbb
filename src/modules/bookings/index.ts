export { busyBlockCreate, MeetingType, meetingTypeCreate } from './dto';
export { rotateEmbedKey } from './booking-settings';
export { addBusyBlock, createMeetingType } from './meeting-type-writes';
export { markNoShow } from './sweep';
