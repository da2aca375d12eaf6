"""BibTeX of the papers and data sets corefbias implements, for metric modules, builders and cards."""

COUNTER_GAP = """\
@inproceedings{xie-etal-2023-counter,
    title = "Counter-{GAP}: Counterfactual Bias Evaluation through Gendered Ambiguous Pronouns",
    author = "Xie, Zhongbin and Kocijan, Vid and Lukasiewicz, Thomas and Camburu, Oana-Maria",
    booktitle = "Proceedings of the 17th Conference of the European Chapter of the Association for Computational Linguistics",
    year = "2023",
    pages = "3761--3773",
}
"""

GAP_ON_GAP = """\
@inproceedings{kocijan21aaai,
    title = "The Gap on Gap: Tackling the Problem of Differing Data Distributions in Bias-Measuring Datasets",
    author = "Kocijan, Vid and Camburu, Oana-Maria and Lukasiewicz, Thomas",
    booktitle = "Proceedings of the 35th AAAI Conference on Artificial Intelligence",
    month = "February",
    year = "2021",
}
"""

GAP = """\
@article{webster-etal-2018-mind,
    title = "Mind the {GAP}: A Balanced Corpus of Gendered Ambiguous Pronouns",
    author = "Webster, Kellie and Recasens, Marta and Axelrod, Vera and Baldridge, Jason",
    journal = "Transactions of the Association for Computational Linguistics",
    volume = "6",
    year = "2018",
    pages = "605--617",
}
"""

WINOGENDER = """\
@inproceedings{rudinger-etal-2018-gender,
    title = "Gender Bias in Coreference Resolution",
    author = "Rudinger, Rachel and Naradowsky, Jason and Leonard, Brian and Van Durme, Benjamin",
    booktitle = "Proceedings of the 2018 Conference of the North American Chapter of the Association for Computational Linguistics: Human Language Technologies, Volume 2 (Short Papers)",
    year = "2018",
    address = "New Orleans, Louisiana",
    publisher = "Association for Computational Linguistics",
    pages = "8--14",
}
"""

WINOBIAS = """\
@inproceedings{zhao-etal-2018-gender,
    title = "Gender Bias in Coreference Resolution: Evaluation and Debiasing Methods",
    author = "Zhao, Jieyu and Wang, Tianlu and Yatskar, Mark and Ordonez, Vicente and Chang, Kai-Wei",
    booktitle = "Proceedings of the 2018 Conference of the North American Chapter of the Association for Computational Linguistics: Human Language Technologies, Volume 2 (Short Papers)",
    year = "2018",
    pages = "15--20",
    url = "https://aclanthology.org/N18-2003",
}
"""

SOWINOBIAS = """\
@inproceedings{dawkins-2021-second,
    title = "Second Order {W}ino{B}ias ({S}o{W}ino{B}ias) Test Set for Latent Gender Bias Detection in Coreference Resolution",
    author = "Dawkins, Hillary",
    booktitle = "Proceedings of the 3rd Workshop on Gender Bias in Natural Language Processing",
    year = "2021",
    pages = "103--111",
    url = "https://aclanthology.org/2021.gebnlp-1.12",
}
"""

ABC = """\
@inproceedings{gonzalez-etal-2020-type,
    title = "Type {B} Reflexivization as an Unambiguous Testbed for Multilingual Multi-Task Gender Bias",
    author = "Gonz{\\'a}lez, Ana Valeria and Barrett, Maria and Hvingelby, Rasmus and Webster, Kellie and S{\\o}gaard, Anders",
    booktitle = "Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP)",
    year = "2020",
    url = "https://aclanthology.org/2020.emnlp-main.209",
}
"""

GENDA_LENS = """\
@misc{sloth-rybner-2023-genda-lens,
    title = "{GenDa} {Lens}: Quantifying Gender Bias in {Danish} Language Models",
    author = "Sloth, Thea Rolskov and Rybner, Astrid Sletten",
    year = "2023",
    howpublished = "\\url{https://github.com/DaDebias/genda-lens}",
}
"""
