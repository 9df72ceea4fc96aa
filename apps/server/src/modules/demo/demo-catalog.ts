import { protocolBuilder, type DemoProtocol } from './demo-builder.js';
import { DEMO_INSTITUTION, DEMO_PATIENTS, DEMO_PHYSICIAN, OTHER_REQUESTER } from './demo-clinic.js';

/** Everything the clinic delivers, dated relative to `now` so the demo always looks recent. */
export function demoProtocols(now: Date): DemoProtocol[] {
  const { protocols, protocol } = protocolBuilder(now);
  const { maria, joao, ana, carlos } = DEMO_PATIENTS;
  const tag = DEMO_INSTITUTION.tag;
  const rx: [string, string] = ['RX', 'Raio-X'];
  const us: [string, string] = ['US', 'Ultrassonografia'];
  const mr: [string, string] = ['MR', 'Ressonância magnética'];
  const ct: [string, string] = ['CT', 'Tomografia computadorizada'];

  protocol('70000101', maria, 170).lab(0, DEMO_PHYSICIAN);
  protocol('70000102', maria, 150).lab(1, DEMO_PHYSICIAN);
  const p3 = protocol('70000103', maria, 120);
  p3.lab(2, DEMO_PHYSICIAN);
  p3.imaging({
    key: 'RXTORAX',
    description: 'Radiografia de tórax PA e perfil',
    type: 'RAIO_X',
    modality: rx,
    requester: DEMO_PHYSICIAN,
    scan: 'xray-chest',
    format: 'jpeg',
    physicianCopy: true,
    findings: [
      'Técnica: incidências posteroanterior e perfil em inspiração.',
      'Campos pulmonares com transparência preservada. Seios costofrênicos livres.',
      'Área cardíaca dentro dos limites da normalidade. Mediastino centrado.',
    ],
    conclusion: ['Radiografia de tórax sem alterações significativas.'],
  });
  protocol('70000104', maria, 95).lab(3, DEMO_PHYSICIAN);
  protocol('70000105', maria, 70, tag).imaging({
    key: 'USABD',
    description: 'Ultrassonografia de abdome total',
    type: 'ULTRASSOM',
    modality: us,
    requester: OTHER_REQUESTER,
    scan: 'ultrasound',
    format: 'png',
    findings: [
      'Fígado de dimensões normais, contornos regulares e ecotextura homogênea.',
      'Vesícula biliar normodistendida, de paredes finas, com imagem anecoica de 1,2 cm sem sombra acústica.',
      'Rins tópicos, de dimensões normais. Baço e pâncreas sem alterações.',
    ],
    conclusion: ['Pequeno cisto simples hepático. Demais estruturas sem alterações.'],
  });
  const p6 = protocol('70000106', maria, 45);
  p6.lab(4, DEMO_PHYSICIAN);
  p6.imaging({
    key: 'RMJOELHO',
    description: 'Ressonância magnética do joelho direito',
    type: 'RESSONANCIA',
    modality: mr,
    status: 'RETIFICATION',
    rectificationStatus: 'PENDING',
    requester: DEMO_PHYSICIAN,
    scan: 'mri-knee',
    format: 'png',
    findings: ['Menisco medial com sinal alterado no corno posterior.', 'Ligamentos cruzados íntegros.'],
    conclusion: ['Laudo em retificação: uma nova versão será liberada.'],
  });
  const p7 = protocol('70000107', maria, 20);
  p7.lab(5, DEMO_PHYSICIAN, 'PARTIAL_REPORT');
  p7.imaging({
    key: 'TCCRANIO',
    description: 'Tomografia computadorizada de crânio',
    type: 'TOMOGRAFIA',
    modality: ct,
    status: 'FINISHED_RETIFICATION',
    rectificationStatus: 'FINISHED',
    requester: DEMO_PHYSICIAN,
    scan: 'ct-head',
    format: 'png',
    signed: 'pdf',
    findings: [
      'Exame realizado sem contraste, com cortes axiais.',
      'Sistema ventricular de dimensões normais. Sulcos corticais preservados.',
      'Retificação: corrigida a lateralidade descrita na versão anterior.',
    ],
    conclusion: ['Tomografia de crânio sem alterações agudas.'],
  });
  const p8 = protocol('70000108', maria, 5);
  p8.exam({
    key: 'URINA-70000108',
    description: 'Urina tipo 1',
    type: 'URINALISE',
    modality: ['LAB', 'Laboratório'],
    status: 'DISCARDED',
    requester: DEMO_PHYSICIAN,
  });
  p8.exam({
    key: 'MAMO-70000108',
    description: 'Mamografia bilateral',
    type: 'MAMOGRAFIA',
    modality: ['MG', 'Mamografia'],
    status: 'IN_PROGRESS',
    requester: DEMO_PHYSICIAN,
  });
  p8.exam({
    key: 'ECO-70000108',
    description: 'Ecocardiograma transtorácico',
    type: 'ULTRASSOM',
    modality: us,
    status: 'PENDING',
    requester: DEMO_PHYSICIAN,
  });

  protocol('70000201', joao, 60, tag).imaging({
    key: 'RXMAO',
    description: 'Radiografia da mão esquerda',
    type: 'RAIO_X',
    modality: rx,
    requester: DEMO_PHYSICIAN,
    scan: 'xray-hand',
    format: 'jpeg',
    signed: 'p7s',
    findings: ['Estruturas ósseas de morfologia e densidade normais.', 'Espaços articulares preservados.'],
    conclusion: ['Radiografia da mão sem alterações.'],
  });
  // Recent enough for the physician's and the partner's default range (last 7 days).
  protocol('70000202', joao, 6, tag).lab(5, DEMO_PHYSICIAN);

  protocol('70000301', ana, 30).imaging({
    key: 'USOBST',
    description: 'Ultrassonografia obstétrica',
    type: 'ULTRASSOM',
    modality: us,
    requester: DEMO_PHYSICIAN,
    scan: 'ultrasound',
    format: 'png',
    physicianCopy: true,
    findings: [
      'Gestação única, tópica, com embrião de batimentos cardíacos presentes.',
      'Comprimento cabeça-nádega compatível com 12 semanas e 3 dias.',
    ],
    conclusion: ['Gestação tópica de 12 semanas e 3 dias, evolutiva.'],
  });

  protocol('70000401', carlos, 2, tag).imaging({
    key: 'TCTORAX',
    description: 'Tomografia computadorizada de tórax',
    type: 'TOMOGRAFIA',
    modality: ct,
    requester: DEMO_PHYSICIAN,
    scan: 'ct-chest',
    format: 'png',
    signed: 'p7s',
    findings: [
      'Parênquima pulmonar com nódulo sólido de 4 mm no lobo inferior direito.',
      'Mediastino sem linfonodomegalias.',
    ],
    conclusion: ['Nódulo pulmonar de 4 mm: controle tomográfico conforme critérios clínicos.'],
  });
  protocol('70000402', carlos, 100).imaging({
    key: 'RMCRANIO',
    description: 'Ressonância magnética de crânio',
    type: 'RESSONANCIA',
    modality: mr,
    requester: DEMO_PHYSICIAN,
    scan: 'mri-brain',
    format: 'jpeg',
    findings: ['Substância branca com focos de hipersinal em T2 inespecíficos.', 'Sem efeito de massa.'],
    conclusion: ['Focos inespecíficos de hipersinal na substância branca, de provável natureza microangiopática.'],
  });
  protocol('70000403', carlos, 130).exam({
    key: 'VITD-70000403',
    description: 'Vitamina D (25-hidroxi)',
    type: 'BIOQUIMICA_ESPECIAL',
    modality: ['LAB', 'Laboratório'],
    status: 'UNIT_AVAILABLE',
    requester: DEMO_PHYSICIAN,
  });
  return protocols;
}
