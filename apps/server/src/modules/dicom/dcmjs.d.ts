// dcmjs ships no type declarations: the few calls the portal makes.
declare module 'dcmjs' {
  interface DicomDict {
    meta: Record<string, unknown>;
    dict: Record<string, unknown>;
    write(options?: Record<string, unknown>): ArrayBuffer;
  }
  const dcmjs: {
    data: {
      DicomMessage: {
        readFile(buffer: ArrayBuffer, options?: { untilTag?: string; includeUntilTagValue?: boolean }): DicomDict;
      };
      DicomDict: new (meta: Record<string, unknown>) => DicomDict;
      DicomMetaDictionary: {
        denaturalizeDataset(dataset: Record<string, unknown>): Record<string, unknown>;
      };
    };
  };
  export default dcmjs;
}
