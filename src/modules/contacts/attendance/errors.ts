import { defineErrors } from '../../../platform/errors';

/** Attendance is recorded through the operator API, which answers the framework shape. */
export const AttendanceErrors = defineErrors('AttendanceErrors', {
  eventNotFound: { status: 404, message: 'Event not found' },
});
