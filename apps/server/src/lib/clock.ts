/** The source of "now"; tests inject a controllable one instead of touching timers. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export const isoNow = (clock: Clock): string => clock.now().toISOString();
export const addMs = (date: Date, ms: number): Date => new Date(date.getTime() + ms);
